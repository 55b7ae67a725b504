// Text: numbers written without iostreams or locales (see detail::append in
// core/error.hpp), and text handed to C callers, written into their buffer.
#pragma once

#include "core/error.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

namespace dm {

// `value` as printf's "%.<precision>g" writes it in the C locale, whatever the
// process's locales say: 1.5, 0.00045, 1e+06 (precision 6, as an ostream writes by
// default; 3 gives 1.5 for 1.5 and 3.04 for 3.0371).
inline std::string general_text(double value, int precision) {
    char buf[64];  // enough for any double at precision <= 17
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, precision);
    return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("?");
}

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
