// The HTTP API's request parameters (`kalah serve`): a URL's query string -> its parameters -> a
// checked query.
#pragma once

#include <map>
#include <string>
#include <string_view>

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

// A query string's parameters ("k=v&k2=v2", without the '?'), decoded as HTML forms encode them:
// '+' is a space, %HH the byte HH. Empty pieces are skipped; a piece without '=' has an empty
// value; repeated keys are all kept. Throws InputError for a '%' not followed by two hex digits.
using QueryParams = std::multimap<std::string, std::string>;
QueryParams parse_query_string(std::string_view query);

// `text` as a query string's key or value: unreserved bytes (A-Z a-z 0-9 - . _ ~) kept, a space as
// '+', every other byte %HH; parse_query_string decodes it back.
std::string encode_query_component(std::string_view text);

// Checks the decoded parameters of a query request (parse_query_string's): `position`
// is required, `rules` and `max_time` (a number of seconds > 0) optional, each at most once and at
// most kMaxParameterBytes long; any other parameter is refused. Throws InputError naming the
// problem.
ApiQuery parse_api_query(const QueryParams& params);

}  // namespace kalah::serve
