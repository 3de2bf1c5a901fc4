// Answer::to_json: the JSON object of a query answer (`kalah query --json`, `kalah serve`'s API).
#include <nlohmann/json.hpp>

#include "kalah/kalah.hpp"

namespace kalah::api {
namespace {

using Json = nlohmann::ordered_json;

// margin, outcome and, when only bounded, lower and upper.
void put_value(Json& j, const Value& v) {
  j["margin"] = v.exact() ? Json(v.lower) : Json(nullptr);
  const std::string outcome = v.outcome();
  j["outcome"] = outcome.empty() ? Json(nullptr) : Json(outcome);
  if (!v.exact()) {
    j["lower"] = v.lower;
    j["upper"] = v.upper;
  }
  j["exact"] = v.exact();
}

}  // namespace

std::string Answer::to_json() const {
  Json j;
  j["position"] = position;
  j["rules"] = rules;
  put_value(j, value);
  j["over"] = over;
  j["source"] = source;
  j["moves"] = Json::array();
  for (const MoveValue& m : moves) {
    Json mj;
    mj["pit"] = m.pit;
    put_value(mj, m.value);
    mj["best"] = m.best;
    mj["again"] = m.again;
    mj["position"] = m.position;
    mj["explain"] = m.explain;
    j["moves"].push_back(std::move(mj));
  }
  return j.dump();
}

}  // namespace kalah::api
