// The page `kalah serve` answers at GET / (tools/serve/web/index.html, embedded at build time).
#pragma once

#include <string_view>

namespace kalah::serve {

extern const std::string_view kWebPage;  // HTML with its CSS and JavaScript inline

}  // namespace kalah::serve
