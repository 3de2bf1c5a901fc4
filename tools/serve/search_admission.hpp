// Admission of the searches beyond the tables: a bounded number at once, a share of them a client.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kalah::serve {

// At most `slots` searches run at once and at most `per_client` of them for one client; a search
// that would exceed either is refused at once (no queue). Thread-safe.
class SearchAdmission {
 public:
  // slots >= 1, 1 <= per_client <= slots.
  SearchAdmission(int slots, int per_client);

  // A slot held until release() or the ticket's end, whichever comes first.
  class Ticket {
   public:
    Ticket(SearchAdmission& admission, std::string client)
        : admission_(&admission), client_(std::move(client)) {}
    Ticket(Ticket&& o) noexcept : admission_(o.admission_), client_(std::move(o.client_)) {
      o.admission_ = nullptr;
    }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() { release(); }
    // The slot given back; later calls do nothing.
    void release() {
      if (admission_ != nullptr) admission_->release(client_);
      admission_ = nullptr;
    }

   private:
    SearchAdmission* admission_;
    std::string client_;
  };

  // A slot for `client`, or nullopt when every slot, or the client's share, is taken.
  std::optional<Ticket> admit(const std::string& client);

  int slots() const { return slots_; }
  int per_client() const { return per_client_; }
  int running() const;

 private:
  void release(const std::string& client);

  const int slots_, per_client_;
  mutable std::mutex mutex_;
  int running_ = 0;
  std::map<std::string, int> by_client_;  // clients with a search running, and how many
};

}  // namespace kalah::serve
