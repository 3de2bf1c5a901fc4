// kalah.Database.values and .sample: many boards at once as numpy arrays, one row a board
// (the side to move's pits 1..m and kalah, then the opponent's pits 1..m and kalah).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kalah/kalah.hpp"
#include "solver/library/python/py_database.hpp"

namespace kalah::python {
namespace {

using api::BinaryPosition;
using api::ProbeResult;
using api::TableProbe;

// A BinaryPosition's pits a side and stones a pit.
constexpr int kMaxPits = int(std::size(BinaryPosition{}.own));
constexpr int kMaxPitStones = std::numeric_limits<std::uint8_t>::max();
static_assert(sizeof(BinaryPosition{}.own[0]) == sizeof(std::uint8_t));
constexpr int kMaxStones = 65535;  // on a board, kalahs included: the notation's limit (RULES.md)
constexpr std::size_t kChunk = 4096;  // boards converted, then probed, at a time

// The numpy module; ImportError saying what needs it when it is not installed.
py::module_ numpy(const char* what) {
  try {
    return py::module_::import("numpy");
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    throw py::import_error(std::string("kalah.Database.") + what +
                           " needs numpy (pip install numpy; Debian: python3-numpy)");
  }
}

// The table (rules, pits) ready for probes; ValueError when the database holds none.
TableProbe table_for(const api::Database& db, const std::string& rules, int pits,
                     const char* what) {
  std::optional<TableProbe> t = db.table_probe(rules, pits);
  if (t) return *t;
  std::string held;
  for (const api::Table& table : db.tables())
    if (table.rules == rules) held += (held.empty() ? "" : ", ") + std::to_string(table.pits);
  throw py::value_error(std::string(what) + ": the database holds no " + rules + " table of " +
                        std::to_string(pits) + " pits" +
                        (held.empty() ? " (none of that rule set)"
                                      : " (its " + rules + " tables have " + held + " pits)"));
}

// What is wrong with cell c of a board of m pits a side holding v stones, or "" when nothing is.
std::string cell_problem(int c, int m, std::int64_t v) {
  const bool kalah = c == m || c == 2 * m + 1;
  const int most = kalah ? kMaxStones : kMaxPitStones;
  if (v >= 0 && v <= most) return "";
  const std::string side = c <= m ? "the side to move's " : "the opponent's ";
  const std::string cell = kalah ? "kalah" : "pit " + std::to_string(c <= m ? c + 1 : c - m);
  return "column " + std::to_string(c) + " (" + side + cell + ") holds " + std::to_string(v) +
         " stones; a " + (kalah ? "kalah" : "pit") + " holds 0.." + std::to_string(most);
}

// What is wrong with a board's cells, or "" when nothing is.
std::string row_problem(const std::int64_t* row, int m) {
  std::int64_t total = 0;
  for (int c = 0; c < 2 * m + 2; ++c) {
    if (std::string problem = cell_problem(c, m, row[c]); !problem.empty()) return problem;
    total += row[c];
  }
  if (total > kMaxStones)
    return "holds " + std::to_string(total) + " stones in all; at most " +
           std::to_string(kMaxStones);
  return {};
}

// The board of a row of m pits a side into b; false when a count is out of range (row_problem
// says which).
[[gnu::always_inline]] inline bool board_of(const std::int64_t* row, int m, BinaryPosition& b) {
  std::uint64_t pits_or = 0;  // any count beyond 255 (or negative) sets a bit above 255
  std::uint64_t total = 0;    // wraps only when a count is out of range, which is then refused
  b.pits = m;
  for (int i = 0; i < m; ++i) {
    pits_or |= std::uint64_t(row[i]) | std::uint64_t(row[m + 1 + i]);
    total += std::uint64_t(row[i]) + std::uint64_t(row[m + 1 + i]);
    b.own[i] = std::uint8_t(row[i]);
    b.opp[i] = std::uint8_t(row[m + 1 + i]);
  }
  const std::int64_t own_kalah = row[m], opp_kalah = row[2 * m + 1];
  b.own_kalah = int(own_kalah);
  b.opp_kalah = int(opp_kalah);
  total += std::uint64_t(own_kalah) + std::uint64_t(opp_kalah);
  return pits_or <= std::uint64_t(kMaxPitStones) && std::uint64_t(own_kalah) <= kMaxStones &&
         std::uint64_t(opp_kalah) <= kMaxStones && total <= kMaxStones;
}

// b into a row of 2 * b.pits + 2 cells: board_of's inverse.
template <class T>
void row_of(const BinaryPosition& b, T* row) {
  const int m = b.pits;
  for (int i = 0; i < m; ++i) {
    row[i] = T(b.own[i]);
    row[m + 1 + i] = T(b.opp[i]);
  }
  row[m] = T(b.own_kalah);
  row[2 * m + 1] = T(b.opp_kalah);
}

// The boards as a C-contiguous int64 array of shape (n, 2m + 2) and their m; TypeError for a
// dtype other than integers, ValueError for another shape.
std::pair<py::array_t<std::int64_t>, int> board_array(const py::handle& boards) {
  const py::array any = numpy("values").attr("asarray")(boards);
  const char kind = any.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw py::type_error("boards must hold integers (stones), not " +
                         py::str(any.dtype()).cast<std::string>());
  if (any.ndim() != 2 || any.shape(1) < 4 || any.shape(1) % 2 != 0 ||
      any.shape(1) > 2 * kMaxPits + 2) {
    std::string shape = "(";
    for (py::ssize_t d = 0; d < any.ndim(); ++d)
      shape += (d ? ", " : "") + std::to_string(any.shape(d));
    throw py::value_error(
        "boards must have shape (n, 2 * pits + 2) with 1 <= pits <= " + std::to_string(kMaxPits) +
        ", not " + shape + (any.ndim() == 1 ? ",)" : ")"));
  }
  if (kind == 'u' && any.itemsize() == 8 && any.size() > 0 &&
      any.attr("max")().cast<std::uint64_t>() > std::uint64_t(kMaxStones))
    throw py::value_error("boards hold a count above " + std::to_string(kMaxStones) +
                          " (a pit holds 0.." + std::to_string(kMaxPitStones) + ")");
  // The converting constructor raises (MemoryError) itself when the copy cannot be made.
  py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> rows(any);
  return {rows, int(any.shape(1) - 2) / 2};
}

// out[i] = t.probe(in[i]); a board the table could not read (a damaged block) raises what
// Database.value raises for it, or else a DatabaseError naming it.
void probe_or_raise(const api::Database& db, const TableProbe& t,
                    std::span<const BinaryPosition> in, std::span<ProbeResult> out) {
  t.probe(in, out);
  for (std::size_t i = 0; i < in.size(); ++i)
    if (out[i].status == ProbeResult::Status::kError) {
      db.value(t.rules(), api::notation(in[i]));  // throws the database's own error
      throw api::Error(api::Error::Kind::kDatabase,
                       api::notation(in[i]) + ": the table could not be read");
    }
}

// The margins of n boards (rows of m) from t: margin[i] where exact, covered[i] whether it is.
// ValueError naming the first malformed row; a damaged table raises (probe_or_raise).
void probe_rows(const api::Database& db, const TableProbe& t, const std::int64_t* rows,
                std::size_t n, int m, std::int32_t* margin, bool* covered) {
  const std::size_t width = std::size_t(2 * m + 2);
  std::vector<BinaryPosition> in(std::min(n, kChunk));
  std::vector<ProbeResult> out(in.size());
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t k = std::min(kChunk, n - first);
    for (std::size_t j = 0; j < k; ++j) {
      const std::int64_t* row = rows + (first + j) * width;
      if (!board_of(row, m, in[j]))
        throw py::value_error("boards row " + std::to_string(first + j) + ": " +
                              row_problem(row, m));
    }
    probe_or_raise(db, t, std::span(in.data(), k), std::span(out.data(), k));
    for (std::size_t j = 0; j < k; ++j) {
      covered[first + j] = out[j].exact();
      margin[first + j] = out[j].exact() ? out[j].margin : 0;
    }
  }
}

py::object masked(py::array_t<std::int32_t> margins, py::array_t<bool> covered) {
  const py::module_ np = numpy("values");
  return np.attr("ma").attr("MaskedArray")(margins,
                                           py::arg("mask") = np.attr("logical_not")(covered));
}

// Database.values(rules, boards).
py::object values(const PyDatabase& self, const std::string& rules, const py::handle& boards) {
  auto [rows, m] = board_array(boards);
  const std::size_t n = std::size_t(rows.shape(0));
  py::array_t<std::int32_t> margins(static_cast<py::ssize_t>(n));
  py::array_t<bool> covered(static_cast<py::ssize_t>(n));
  std::int32_t* margin = margins.mutable_data();
  bool* cover = covered.mutable_data();
  const std::int64_t* data = rows.data();
  self.released([&](const api::Database& d) {
    probe_rows(d, table_for(d, rules, m, "values"), data, n, m, margin, cover);
    return 0;
  });
  return masked(margins, covered);
}

const char* const kValuesDoc =
    "The exact margins of many boards from the tables alone, a numpy masked array of\n"
    "int32, masked where the table does not cover the board (more stones in pits than its\n"
    "levels). boards: integers of shape (n, 2 * pits + 2), one board a row, the side to\n"
    "move first: its pits 1..pits, its kalah, the opponent's pits 1..pits, the opponent's\n"
    "kalah (the order of the notation \"s1,..,sm,SK/n1,..,nm,NK S\"). A board whose game\n"
    "is over has its final margin; a masked entry's data is 0, not a margin. Raises\n"
    "TypeError for a dtype other than integers, ValueError for another shape, a row with\n"
    "a negative count, more than 255 stones in a pit or 65535 on the board (naming the\n"
    "row), an unknown rule set or no table of that many pits, and DatabaseError for a\n"
    "damaged table. The GIL is released while it probes.";

// The boards of stones_in_pits stones drawn inside the table t, and their margins.
std::pair<std::vector<BinaryPosition>, std::vector<ProbeResult>> draw_inside(
    const api::Database& d, const TableProbe& t, int stones_in_pits, long long n,
    std::uint64_t seed, int stones) {
  if (stones_in_pits < 2 || stones_in_pits > t.max_stones())
    throw py::value_error(
        "sample: stones_in_pits must be in [2, " + std::to_string(t.max_stones()) +
        "] (2: the least that leaves both sides stones; " + std::to_string(t.max_stones()) +
        ": the table's last level), not " + std::to_string(stones_in_pits));
  api::DrawOptions o;
  o.pits = t.pits();
  o.count = std::size_t(n);
  o.min_stones = o.max_stones = stones_in_pits;
  o.stones = stones;
  o.seed = seed;
  std::vector<BinaryPosition> drawn = api::draw_positions(o);
  std::vector<ProbeResult> results(drawn.size());
  probe_or_raise(d, t, drawn, results);
  for (std::size_t i = 0; i < drawn.size(); ++i)
    if (!results[i].exact())  // inside the table's levels: only a damaged table misses one
      throw api::Error(api::Error::Kind::kDatabase,
                       "sample: " + api::notation(drawn[i]) + " is missing from the table");
  return {std::move(drawn), std::move(results)};
}

// Database.sample(rules, pits, stones_in_pits, n, seed, stones).
py::tuple sample(const PyDatabase& self, const std::string& rules, int pits, int stones_in_pits,
                 long long n, std::uint64_t seed, int stones) {
  numpy("sample");
  if (n < 0) throw py::value_error("sample: n must be >= 0, not " + std::to_string(n));
  if (pits < 1 || pits > kMaxPits)
    throw py::value_error("sample: pits must be in [1, " + std::to_string(kMaxPits) + "], not " +
                          std::to_string(pits));
  const auto [drawn, results] = self.released([&](const api::Database& d) {
    return draw_inside(d, table_for(d, rules, pits, "sample"), stones_in_pits, n, seed, stones);
  });
  const py::ssize_t count = py::ssize_t(drawn.size()), width = 2 * pits + 2;
  py::array_t<std::int32_t> boards({count, width});
  py::array_t<std::int32_t> margins(count);
  std::int32_t* row = boards.mutable_data();
  std::int32_t* margin = margins.mutable_data();
  for (std::size_t i = 0; i < drawn.size(); ++i, row += width) {
    row_of(drawn[i], row);
    margin[i] = results[i].margin;
  }
  return py::make_tuple(boards, margins);
}

const char* const kSampleDoc =
    "Training data: n boards drawn uniformly inside one level of the table, and their\n"
    "exact margins, as (boards, margins): int32 arrays of shapes (n, 2 * pits + 2) (the\n"
    "layout of values()) and (n,). Each board has stones_in_pits stones in pits (2 up to\n"
    "the table's last level), every arrangement over the 2 * pits pits that leaves both\n"
    "sides stones equally likely, the side to move's kalah and the opponent's splitting\n"
    "the rest of 2 * pits * stones stones, neither more than half: the positions\n"
    "`kalah referee --stones-in-pits S-S --seed SEED --stones STONES` draws. The same\n"
    "seed gives the same boards. Raises ValueError for an unknown rule set, no table of\n"
    "that many pits, stones_in_pits outside its levels, n < 0 or stones < 0, and\n"
    "DatabaseError for a damaged table.";

}  // namespace

void bind_board_arrays(py::class_<PyDatabase>& db) {
  db.def("values", &values, py::arg("rules"), py::arg("boards"), kValuesDoc)
      .def("sample", &sample, py::arg("rules"), py::arg("pits"), py::arg("stones_in_pits"),
           py::arg("n"), py::arg("seed") = 1, py::kw_only(), py::arg("stones") = 4, kSampleDoc);
}

}  // namespace kalah::python
