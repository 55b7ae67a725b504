// What one execution of a shift or halo plan moves on this rank, in elements.
#pragma once

#include "exchange/plan.hpp"

#include <cstdint>

namespace dm::shift {

struct Volume {
    std::int64_t messages_sent = 0, messages_received = 0, elements_sent = 0, elements_copied = 0;

    static Volume of(const exchange::Volume &v, std::size_t elsize) {
        const auto e = static_cast<std::int64_t>(elsize);
        return {v.messages_sent, v.messages_received, v.bytes_sent / e, v.bytes_copied / e};
    }
};

}  // namespace dm::shift
