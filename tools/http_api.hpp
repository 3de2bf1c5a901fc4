// The HTTP API's request parameters (`kalah serve`): a query string's parameters -> a checked query.
#pragma once

#include <map>
#include <string>

#include "position.hpp"
#include "rules.hpp"

namespace kalah::cli {

// GET /api/v1/query?rules=R&position=P: the rule set (default wetherell) and the position.
struct ApiQuery {
  Rules rules = Rules::kWetherell;
  Position position;
};

// Longest accepted value of any parameter, in bytes.
constexpr std::size_t kMaxParameterBytes = 256;

// Checks the decoded parameters of a query request (httplib::Params is this multimap): `position`
// is required, `rules` optional, each at most once and at most kMaxParameterBytes long; any other
// parameter is refused. Throws InputError naming the problem.
ApiQuery parse_api_query(const std::multimap<std::string, std::string>& params);

}  // namespace kalah::cli
