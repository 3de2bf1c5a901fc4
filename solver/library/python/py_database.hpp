// kalah.Database's C++ side: a libkalah Database until close(), shared by the module's files.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>

#include "kalah/kalah.hpp"

namespace kalah::python {

namespace py = pybind11;

// kalah.Database: a Database until close(). Calls made before close() keep it open until they
// return; it closes (and its directory may be opened again) when the last of them has.
class PyDatabase {
 public:
  PyDatabase(const std::optional<std::string>& path, const kalah::api::Options& options)
      : db_(path ? std::make_shared<const api::Database>(*path, options)
                 : std::make_shared<const api::Database>(options)) {}

  // The open Database; throws Error(kInput) once closed. Called with the GIL held.
  std::shared_ptr<const api::Database> get() const {
    if (!db_) throw api::Error(api::Error::Kind::kInput, "operation on a closed kalah.Database");
    return db_;
  }
  bool closed() const { return !db_; }
  void close() { db_.reset(); }

  // f(db) on the open Database with the GIL released.
  template <class F>
  auto released(F&& f) const {
    const std::shared_ptr<const api::Database> db = get();
    py::gil_scoped_release release;
    return f(*db);
  }

 private:
  std::shared_ptr<const api::Database> db_;
};

// Database's queries of many boards at once through numpy: values() and sample()
// (board_arrays.cpp).
void bind_board_arrays(py::class_<PyDatabase>& db);

}  // namespace kalah::python
