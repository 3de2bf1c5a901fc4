// gzip (RFC 1952) of a whole text, for answers a client accepts compressed.
#pragma once

#include <string>
#include <string_view>

namespace kalah::serve {

// `text` as one gzip member at zlib's best compression. Throws std::runtime_error when zlib fails.
std::string gzip(std::string_view text);

}  // namespace kalah::serve
