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

// A binary function of cvl.h over two vectors of one type (add_wud, les_wuz, ...):
// its entry point and its scalar form.
struct BinaryFunction {
    void (*vectors)(int d, int s1, int s2, int len, int scratch);
    ScalarForm scalar;
};

// Local. The binary function `name`; nullptr for any other name.
const BinaryFunction *binary_function(std::string_view name);

}  // namespace dm::vector
