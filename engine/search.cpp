// The engine's Searcher over the registered rule sets; the search itself is search_impl.hpp.
#include "engine/search_impl.hpp"

namespace kalah {

Searcher::Searcher(Rules rules, const SearchOptions& options)
    : Searcher(with_rules(rules, [&](auto r) { return for_rules<decltype(r)>(options); })) {}
Searcher::Searcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Searcher::~Searcher() = default;
Searcher::Searcher(Searcher&&) noexcept = default;
Searcher& Searcher::operator=(Searcher&&) noexcept = default;

SearchResult Searcher::search(const Position& p, const SearchLimits& limits) {
  return impl_->run(p, limits);
}
void Searcher::clear() {
  impl_->tt.clear();
}

}  // namespace kalah
