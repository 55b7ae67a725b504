// Operations of the vector layer beyond CVL's interface (cvl.h has no negation; its
// programs compute 0 - x, two passes over memory where one will do). Same arguments
// and rules as the CVL functions they sit beside (elementwise.cpp).
#pragma once

namespace dm::vector {

// d[i] = -s[i] on len ints (wrapping: -INT_MIN is INT_MIN) or doubles. Local.
void neg_wuz(int d, int s, int len, int scratch);
void neg_wud(int d, int s, int len, int scratch);

}  // namespace dm::vector
