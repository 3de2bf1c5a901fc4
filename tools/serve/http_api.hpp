// The HTTP API's request parameters (`kalah serve`): a query string's parameters -> a checked
// query.
#pragma once

#include <map>
#include <string>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah::serve {

// GET /api/v1/query?rules=R&position=P[&max_time=SEC] (and /api/v1/analyze): the rule set
// (default wetherell), the position and the seconds of search asked for (0: the server's limit).
struct ApiQuery {
  Rules rules = Rules::kWetherell;
  Position position;
  double max_time = 0;
};

// Longest accepted value of any parameter, in bytes.
constexpr std::size_t kMaxParameterBytes = 256;

// Checks the decoded parameters of a query request (httplib::Params is this multimap): `position`
// is required, `rules` and `max_time` (a number of seconds > 0) optional, each at most once and at
// most kMaxParameterBytes long; any other parameter is refused. Throws InputError naming the
// problem.
ApiQuery parse_api_query(const std::multimap<std::string, std::string>& params);

}  // namespace kalah::serve
