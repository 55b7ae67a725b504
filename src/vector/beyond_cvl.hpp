// Operations of the vector layer beyond CVL's interface. cvl.h has no negation (its
// programs compute 0 - x) and no scalar operand (they distribute the scalar into a
// vector first): two passes over memory where one will do. Same arguments and rules
// as the CVL functions they sit beside (elementwise.cpp).
#pragma once

#include <string_view>

namespace dm::vector {

// d[i] = -s[i] on len ints (wrapping: -INT_MIN is INT_MIN) or doubles. Local.
void neg_wuz(int d, int s, int len, int scratch);
void neg_wud(int d, int s, int len, int scratch);

// A binary function of cvl.h with a scalar for one operand: d[i] = f(s[i], x), or
// f(x, s[i]) where `scalar_first`; x is converted to the function's source type
// (exactly, for the int32 and bool values the caller checked). Local, like the
// function it stands for; in checked mode x is compared across ranks with the rest.
using ScalarForm = void (*)(int d, int s, double x, bool scalar_first, int len);

// The scalar form of binary function `name` (add_wud, les_wuz, ...: every function
// of cvl.h over two vectors of one type); nullptr for any other name.
ScalarForm scalar_form(std::string_view name);

}  // namespace dm::vector
