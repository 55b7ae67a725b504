// Text handed to C callers: written into their buffer, cut short to fit.
#pragma once

#include "core/error.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace dm {

// Writes at most size - 1 characters of `text` and a NUL to `out`; *length (if
// non-NULL) is the full length. DM_ERR_ARG for a NULL `out` with a nonzero size.
inline void write_text(const std::string &text, char *out, std::size_t size, std::size_t *length) {
    if (size > 0 && !out) fail(DM_ERR_ARG, "text is NULL but size is ", size);
    if (length) *length = text.size();
    if (size == 0) return;
    const std::size_t n = std::min(size - 1, text.size());
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
}

// "(10, 4)" for error messages; one value reads "(10,)", as Python writes a shape.
template <class T>
std::string tuple_text(const std::vector<T> &values) {
    std::string out = "(";
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
    return out + (values.size() == 1 ? ",)" : ")");
}

}  // namespace dm
