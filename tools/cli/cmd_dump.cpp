// `kalah dump`: every record of a database decoded (db/record_dump.hpp), as text or JSON.
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "db/record_dump.hpp"
#include "db/store.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string hex64(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

void put_table(Json& j, TableId t) {
  j["rules"] = std::string(rules_name(t.rules));
  j["m"] = t.m;
}

// A record as one JSON object: "type", "key" (hex), then its fields in the order of db/FORMAT.md;
// checksums and build identities as 16 hex digits. The text output prints the same object.
Json to_json(const DumpRecord& r) {
  Json j;
  struct Fields {
    Json& j;
    void operator()(const HeaderDump& h) const {
      j["type"] = "header";
      j["version"] = h.version;
    }
    void operator()(const TableDump& t) const {
      j["type"] = "table";
      put_table(j, t.table);
      j["version"] = t.format_version;
      j["complete_through"] = t.complete_through;
    }
    void operator()(const LevelDump& l) const {
      j["type"] = "level";
      put_table(j, l.table);
      j["n"] = l.n;
      j["entries"] = l.meta.entries;
      j["checksum"] = hex64(l.meta.checksum);
      j["version"] = l.meta.format_version;
      j["block_entries"] = l.meta.block_entries;
      j["stored_bytes"] = l.meta.compressed_bytes;
      j["blocks"] = l.meta.blocks;
      j["blocks_per_group"] = l.meta.blocks_per_group;
      j["complete"] = l.meta.complete;
      j["codec"] = l.meta.codec;
      j["zstd_level"] = l.meta.zstd_level;
      if (l.build) j["build"] = build_name(*l.build);
      if (l.record_checksum) j["record_checksum"] = hex64(*l.record_checksum);
    }
    void operator()(const GroupDump& g) const {
      j["type"] = "group";
      put_table(j, g.table);
      j["n"] = g.n;
      j["group"] = g.group;
      j["count"] = g.blocks.size();
      Json blocks = Json::array();
      for (const BlockDump& b : g.blocks) {
        Json o;
        o["block"] = b.block;
        o["offset"] = b.offset;
        o["bytes"] = b.bytes;
        if (b.checksum) o["checksum"] = hex64(*b.checksum);
        o["entries"] = b.entries;
        o["codec"] = b.codec;
        o["values_checksum"] = hex64(b.values_checksum);
        o["content_checksum"] = hex64(b.content_checksum);
        blocks.push_back(std::move(o));
      }
      j["blocks"] = std::move(blocks);
    }
    void operator()(const BookDump& b) const {
      j["type"] = "book";
      put_table(j, b.table);
      j["pits"] = book_pits_text(b.pits);
      j["margin"] = b.margin;
      j["checked"] = b.checked;
      if (b.checked) j["checksum"] = hex64(b.checksum);
    }
  };
  std::visit(Fields{j}, r.fields);
  // "key" and "bytes" after "type", before the fields.
  Json out;
  out["type"] = j["type"];
  out["key"] = key_hex(r.key);
  out["bytes"] = r.value_bytes;
  for (const auto& [name, value] : j.items())
    if (name != "type") out[name] = value;
  return out;
}

// name=value for each field but "type", which leads the line; a block as [name=value ...].
std::string text_fields(const Json& j) {
  std::string out;
  for (const auto& [name, value] : j.items()) {
    if (name == "type") continue;
    out += out.empty() ? "" : " ";
    if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i)
        out += (i == 0 ? "[" : " [") + text_fields(value[i]) + "]";
    } else {
      out += name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  return out;
}

int run_dump(int argc, char** argv) {
  std::string db = kDefaultDbPath;
  po::options_description desc("options");
  add_db_option(desc, db);
  desc.add_options()("json", "print one JSON document instead of text")(
      "without-builds",
      "leave out what differs between two builds of the same table: each level's build and "
      "record checksum, each block's first checksum");
  po::variables_map vm;
  if (!parse_command(
          argc, argv, "dump [--db PATH] [--json] [--without-builds]",
          "Prints every record of the database in key order, decoded (db/FORMAT.md): the header;\n"
          "each table record (rules, m, writer's format version, levels complete); each level\n"
          "record (entries, level checksum, format version, values per block, stored bytes,\n"
          "blocks, blocks per group, completion, codec, zstd level, build identity, record\n"
          "checksum); each block group with, per block, its offset in the group, its stored\n"
          "bytes, its first checksum (over its place and bytes), entry count, codec, the\n"
          "checksum of its values and the checksum of its bytes alone (content_checksum, the\n"
          "same in any build that stored the same bytes); each book entry (pits, side to move\n"
          "first, margin, checksum). Text: one record a line, its type then name=value fields,\n"
          "a group's blocks each in brackets; checksums and builds in hex. --json: one JSON\n"
          "document {\"database\": PATH, \"records\": [...]} with the same fields.\n"
          "Each record is checked as the readers check it (keys, sizes, the level records' and\n"
          "book entries' checksums, each block's first checksum over its place); values are not\n"
          "decompressed (kalah verify checks them). A record that fails is one line on stderr\n"
          "naming the database and the record's key, after the records before it (none with\n"
          "--json), and exit status 1. --without-builds leaves out each level's build and record\n"
          "checksum and each block's first checksum, so two builds of the same table (gen on one\n"
          "process and under mpirun, say) print the same.",
          desc, {}, vm))
    return 0;
  const bool json = vm.count("json") > 0;
  DumpOptions options;
  options.without_builds = vm.count("without-builds") > 0;

  Json records = Json::array();
  dump_records(db, options, [&](const DumpRecord& r) {
    Json j = to_json(r);
    if (json)
      records.push_back(std::move(j));
    else
      std::cout << j["type"].get<std::string>() << " " << text_fields(j) << "\n";
  });
  if (json) {
    Json doc;
    doc["database"] = db;
    doc["records"] = std::move(records);
    std::cout << doc.dump() << "\n";
  }
  return 0;
}

const RegisterCommand reg{"dump", "every record of a database decoded, as text or JSON", &run_dump};

}  // namespace
}  // namespace kalah::cli
