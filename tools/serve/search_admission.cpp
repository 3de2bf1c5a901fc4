// SearchAdmission: the count of running searches, in all and by client.
#include "tools/serve/search_admission.hpp"

#include <stdexcept>

namespace kalah::serve {

SearchAdmission::SearchAdmission(int slots, int per_client)
    : slots_(slots), per_client_(per_client) {
  if (slots < 1 || per_client < 1 || per_client > slots)
    throw std::invalid_argument("search admission: need 1 <= per_client <= slots");
}

std::optional<SearchAdmission::Ticket> SearchAdmission::admit(const std::string& client) {
  std::lock_guard lock(mutex_);
  if (running_ >= slots_) return std::nullopt;
  int& mine = by_client_[client];
  if (mine >= per_client_) return std::nullopt;
  ++mine;
  ++running_;
  return std::optional<Ticket>(std::in_place, *this, client);
}

int SearchAdmission::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

void SearchAdmission::release(const std::string& client) {
  std::lock_guard lock(mutex_);
  --running_;
  if (const auto it = by_client_.find(client); it != by_client_.end() && --it->second == 0)
    by_client_.erase(it);
}

}  // namespace kalah::serve
