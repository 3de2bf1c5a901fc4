// The Python module `kalah`'s compiled part `kalah._kalah`: kalah::api
// (solver/library/include/kalah/kalah.hpp) for Python, via pybind11.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kalah/kalah.hpp"
#include "solver/library/python/py_database.hpp"

namespace py = pybind11;
using kalah::api::Answer;
using kalah::api::Database;
using kalah::api::Error;
using kalah::api::MoveValue;
using kalah::api::Table;
using kalah::api::Value;
using kalah::python::PyDatabase;

namespace {

// kalah.DatabaseError: Error of kind kDatabase. Owned by the module for the life of the process.
PyObject* database_error = nullptr;

// The margin when the value is exact, else None.
std::optional<int> exact_margin(const Value& v) {
  return v.exact() ? std::optional<int>(v.lower) : std::nullopt;
}

// A margin with its sign: "+3", "-2", "0".
std::string signed_text(int v) {
  char text[16];
  std::snprintf(text, sizeof text, v == 0 ? "%d" : "%+d", v);
  return text;
}

// "+3" when exact, else "-2..+4".
std::string value_text(const Value& v) {
  return v.exact() ? signed_text(v.lower) : signed_text(v.lower) + ".." + signed_text(v.upper);
}

std::string quoted(const std::string& s) {
  return py::repr(py::str(s)).cast<std::string>();
}

std::string value_repr(const Value& v) {
  if (v.exact()) return "Value(" + std::to_string(v.lower) + ")";
  return "Value(lower=" + std::to_string(v.lower) + ", upper=" + std::to_string(v.upper) + ")";
}

std::string move_repr(const MoveValue& m) {
  return "MoveValue(pit=" + std::to_string(m.pit) + ", value=" + value_text(m.value) +
         (m.best ? ", best" : "") + (m.again ? ", again" : "") +
         ", position=" + quoted(m.position) + ")";
}

std::string answer_repr(const Answer& a) {
  std::string moves;
  for (const MoveValue& m : a.moves) {
    if (!moves.empty()) moves += " ";
    moves += std::to_string(m.pit) + ":" + value_text(m.value) + (m.best ? "*" : "");
  }
  const std::string outcome = a.value.outcome();
  return "Answer(" + quoted(a.rules) + ", " + quoted(a.position) +
         ", value=" + value_text(a.value) + (outcome.empty() ? "" : " " + outcome) +
         (a.over ? ", over" : "") + ", source=" + quoted(a.source) + ", moves=[" + moves + "])";
}

std::vector<int> best_pits(const Answer& a) {
  std::vector<int> pits;
  for (const MoveValue& m : a.moves)
    if (m.best) pits.push_back(m.pit);
  return pits;
}

kalah::api::Options::Load load_named(const std::string& name) {
  using Load = kalah::api::Options::Load;
  if (name == "auto") return Load::kAuto;
  if (name == "cache") return Load::kCache;
  if (name == "memory") return Load::kMemory;
  throw Error(Error::Kind::kInput,
              "load must be \"auto\", \"cache\" or \"memory\", not \"" + name + "\"");
}

// Megabytes (>= 0) as bytes.
std::size_t mebibytes(long long mb, const char* what) {
  if (mb < 0) throw Error(Error::Kind::kInput, std::string(what) + " must be >= 0");
  return std::size_t(mb) << 20;
}

kalah::api::Options options_of(long long cache_mb, const std::string& load, int max_stones,
                               long long tt_mb) {
  kalah::api::Options options;
  options.cache_bytes = mebibytes(cache_mb, "cache_mb");
  options.load = load_named(load);
  options.max_stones = max_stones;
  options.tt_bytes = mebibytes(tt_mb, "tt_mb");
  return options;
}

// Value and MoveValue.
void bind_value_and_move(py::module_& m) {
  py::class_<Value>(m, "Value",
                    "A margin for the side to move: exact when lower == upper, else only the "
                    "bounds proven (lower <= margin <= upper; a search ran out of time).")
      .def_readonly("lower", &Value::lower, "Proven lower bound of the margin.")
      .def_readonly("upper", &Value::upper, "Proven upper bound of the margin.")
      .def_property_readonly("exact", &Value::exact, "True when lower == upper.")
      .def_property_readonly("margin", &exact_margin, "The margin when exact, else None.")
      .def_property_readonly(
          "outcome",
          [](const Value& v) -> std::optional<std::string> {
            std::string o = v.outcome();
            return o.empty() ? std::nullopt : std::optional<std::string>(o);
          },
          "\"win\", \"draw\" or \"loss\" when the bounds decide it, else None.")
      .def("__repr__", &value_repr);

  py::class_<MoveValue>(m, "MoveValue", "One legal move of a queried position.")
      .def_readonly("pit", &MoveValue::pit, "The pit played, 1..m, of the side to move.")
      .def_readonly("value", &MoveValue::value,
                    "Value for the side to move in the queried position after this move.")
      .def_property_readonly(
          "margin", [](const MoveValue& mv) { return exact_margin(mv.value); },
          "value.margin: the move's exact margin, or None when only bounded.")
      .def_readonly("best", &MoveValue::best,
                    "True when the move's value is exact and equals the position's exact value.")
      .def_readonly("again", &MoveValue::again, "True when the mover moves again after it.")
      .def_readonly("position", &MoveValue::position, "The position after the move.")
      .def_readonly("explain", &MoveValue::explain,
                    "What the move did (relays, captures, extra turn), one line.")
      .def("__repr__", &move_repr);
}

// Answer and Table.
void bind_answer_and_table(py::module_& m) {
  py::class_<Answer>(m, "Answer",
                     "A position's value and the value of each of its legal moves "
                     "(Database.query). to_json() gives what `kalah query --json` prints.")
      .def_readonly("position", &Answer::position, "The queried position, normalised.")
      .def_readonly("rules", &Answer::rules, "The rule set's name.")
      .def_readonly("value", &Answer::value,
                    "The position's Value for the side to move; when over, the final margin.")
      .def_property_readonly(
          "margin", [](const Answer& a) { return exact_margin(a.value); },
          "value.margin: the exact margin, or None when only bounded.")
      .def_readonly("over", &Answer::over, "True when the game is over (no moves).")
      .def_readonly("source", &Answer::source,
                    "\"database\", \"database + search\", \"search\" or \"rules\" (over).")
      .def_readonly("moves", &Answer::moves,
                    "The legal moves, a list of MoveValue by ascending pit.")
      .def_property_readonly("best_moves", &best_pits,
                             "The pits of the best moves (MoveValue.best), ascending.")
      .def("to_json", &Answer::to_json,
           "The answer as one JSON object (str): what `kalah query --json` prints.")
      .def("__repr__", &answer_repr);

  py::class_<Table>(m, "Table",
                    "One table of a database: exact values of every position of `pits` pits a side "
                    "with at most max_stones stones in pits, under `rules`.")
      .def_readonly("rules", &Table::rules, "The rule set's name.")
      .def_readonly("pits", &Table::pits, "Pits a side.")
      .def_readonly("max_stones", &Table::max_stones, "The most stones in pits it covers.")
      .def(
          "__eq__",
          [](const Table& a, const Table& b) {
            return a.rules == b.rules && a.pits == b.pits && a.max_stones == b.max_stones;
          },
          py::is_operator())
      .def("__repr__", [](const Table& t) {
        return "Table(" + quoted(t.rules) + ", pits=" + std::to_string(t.pits) +
               ", max_stones=" + std::to_string(t.max_stones) + ")";
      });
}

// The value types: Value, MoveValue, Answer, Table.
void bind_values(py::module_& m) {
  bind_value_and_move(m);
  bind_answer_and_table(m);
}

// kalah.Database.
void bind_database_queries(py::class_<PyDatabase>& db);
void bind_database_life(py::class_<PyDatabase>& db);

void bind_database(py::module_& m) {
  py::class_<PyDatabase> db(
      m, "Database",
      "A read-only database of solved tables; without a path, search only.\n"
      "Thread-safe: any number of Python threads may use one Database at once.\n"
      "A directory is open at most once in a process: close() it (or use it\n"
      "as a context manager) before opening it again.");
  db.def(py::init([](const std::optional<std::string>& path, long long cache_mb,
                     const std::string& load, int max_stones, long long tt_mb) {
           const kalah::api::Options options = options_of(cache_mb, load, max_stones, tt_mb);
           py::gil_scoped_release release;
           return PyDatabase(path, options);
         }),
         py::arg("path") = py::none(), py::kw_only(), py::arg("cache_mb") = 256,
         py::arg("load") = "auto", py::arg("max_stones") = -1, py::arg("tt_mb") = 0,
         "Opens the database directory `path` read-only (None: no database, every value by\n"
         "search). cache_mb: memory for decoded values of each table, in MiB. load: how\n"
         "tables are held: \"cache\" (blocks decoded on demand through an LRU cache),\n"
         "\"memory\" (a table decoded whole when first used) or \"auto\" (the cache, switched\n"
         "to memory at the first deep search when it fits cache_mb). max_stones >= 0: use only\n"
         "levels 0..max_stones of each table. tt_mb: the analysis cache kept for all queries,\n"
         "in MiB, and a 32nd more for its generations (0: sized to the first position\n"
         "searched). Raises DatabaseError when `path` is missing, not a kalah database or\n"
         "already open in this process, ValueError on a bad option.")
      .def_property_readonly(
          "path",
          [](const PyDatabase& self) -> std::optional<std::string> {
            const std::string& path = self.get()->path();
            return path.empty() ? std::nullopt : std::optional<std::string>(path);
          },
          "The database directory, or None without a database.")
      .def(
          "tables", [](const PyDatabase& self) { return self.get()->tables(); },
          "The tables held, a list of Table.")
      .def(
          "table",
          [](const PyDatabase& self, const std::string& rules, int pits) {
            return self.get()->table(rules, pits);
          },
          py::arg("rules"), py::arg("pits"),
          "The Table for (rules, pits), or None when the database holds none.");
  bind_database_queries(db);
  kalah::python::bind_board_arrays(db);
  bind_database_life(db);
}

// Database's values: value, query, best_moves, the analysis cache.
void bind_database_queries(py::class_<PyDatabase>& db) {
  db.def(
        "value",
        [](const PyDatabase& self, const std::string& rules, const std::string& position) {
          return self.released([&](const Database& db) { return db.value(rules, position); });
        },
        py::arg("rules"), py::arg("position"),
        "The exact margin (int) of `position` from the tables alone, or None when they do\n"
        "not cover it (no table for its rule set and size, or more stones in pits than the\n"
        "table). A game that is over has its final margin. Raises ValueError on a malformed\n"
        "position or an unknown rule set. The GIL is released while it looks up.")
      .def(
          "query",
          [](const PyDatabase& self, const std::string& rules, const std::string& position,
             double max_time, int threads) {
            return self.released(
                [&](const Database& db) { return db.query(rules, position, max_time, threads); });
          },
          py::arg("rules"), py::arg("position"), py::arg("max_time") = 10.0, py::arg("threads") = 1,
          "The position's value and every move's, an Answer: from the tables where they cover\n"
          "every move, else by one exhaustive search with the tables at the leaves (the value\n"
          "and best moves first, then each other move). max_time: seconds of search in all\n"
          "(0: no limit); what it does not settle is reported as proven bounds, never a guess.\n"
          "threads: search threads (0: all cores). The GIL is released while it runs.")
      .def(
          "lookup",
          [](const PyDatabase& self, const std::string& rules, const std::string& position) {
            return self.released([&](const Database& db) { return db.lookup(rules, position); });
          },
          py::arg("rules"), py::arg("position"),
          "query()'s Answer when it needs no search (the tables value every move, or the game\n"
          "is over), else None: what a server answers at once. Raises as query() does.")
      .def(
          "best_moves",
          [](const PyDatabase& self, const std::string& rules, const std::string& position,
             double max_time) {
            return self.released(
                [&](const Database& db) { return db.best_moves(rules, position, max_time); });
          },
          py::arg("rules"), py::arg("position"), py::arg("max_time") = 10.0,
          "The pits (1..m) of the moves that keep the position's exact value; empty when the\n"
          "game is over or the value could not be settled within max_time seconds. The GIL is\n"
          "released while it runs.")
      .def_property_readonly(
          "tt_bytes", [](const PyDatabase& self) { return self.get()->tt_bytes(); },
          "The analysis cache's size in bytes; 0 until the first search.")
      .def(
          "clear_cache",
          [](const PyDatabase& self) {
            self.released([](const Database& db) {
              db.clear_cache();
              return 0;
            });
          },
          "Empties the analysis cache: the next query searches as on a fresh Database.")
      .def(
          "clear_stale_readers",
          [](const PyDatabase& self) {
            return self.released([](const Database& db) { return db.clear_stale_readers(); });
          },
          "Frees the database's reader slots left by killed processes and returns how many:\n"
          "for a process that keeps the database open for long, now and then (opening it does\n"
          "the same). 0 without a database or without its lock file.");
}

// Database's life: close, the context manager, repr.
void bind_database_life(py::class_<PyDatabase>& db) {
  db.def_property_readonly("closed", &PyDatabase::closed, "True once close() was called.")
      .def("close", &PyDatabase::close,
           "Lets the database go: it closes once the calls under way in other threads have\n"
           "returned, and its directory may then be opened again. Any later call but close()\n"
           "raises ValueError. `with kalah.Database(path) as db:` closes it on leaving.")
      .def("__repr__",
           [](const PyDatabase& self) {
             if (self.closed()) return std::string("Database(closed)");
             const std::string& path = self.get()->path();
             return "Database(" + (path.empty() ? std::string("None") : quoted(path)) + ")";
           })
      .def(
          "__enter__", [](PyDatabase& self) -> PyDatabase& { return self; },
          py::return_value_policy::reference_internal)
      .def("__exit__", [](PyDatabase& self, py::args) { self.close(); });
}

// The notation helpers: play, start_position, rule_sets, version.
void bind_functions(py::module_& m) {
  m.def("play", &kalah::api::play, py::arg("rules"), py::arg("position"), py::arg("pit"),
        "The position after playing `pit` (1..m) of the side to move. Raises ValueError when\n"
        "the position is malformed or over, or the pit is empty or out of range.");
  m.def("start_position", &kalah::api::start_position, py::arg("pits"), py::arg("stones"),
        "The start position of `pits` pits a side with `stones` each, South to move.");
  m.def("rule_sets", &kalah::api::rule_sets,
        "The rule sets' names, in the order `kalah --help` lists them.");
  m.def("version", &kalah::api::version, "The library's version, \"MAJOR.MINOR\".");
  m.attr("__version__") = kalah::api::version();
}

}  // namespace

PYBIND11_MODULE(_kalah, m) {
  m.doc() = "The compiled part of the package kalah: import kalah, and see help(kalah).";

  database_error = PyErr_NewExceptionWithDoc(
      "kalah.DatabaseError",
      "A missing, unreadable or corrupted database (kalah::api::Error of kind kDatabase).",
      PyExc_RuntimeError, nullptr);
  if (!database_error) throw py::error_already_set();
  m.add_object("DatabaseError", py::handle(database_error));  // the module takes a new reference
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(e.kind() == Error::Kind::kInput ? PyExc_ValueError : database_error,
                      e.what());
    }
  });

  bind_values(m);
  bind_database(m);
  bind_functions(m);
}
