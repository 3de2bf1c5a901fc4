# Writes OUT, a C++ source defining kalah::serve::kWebPage (the bytes of IN) for `kalah serve`.
# Usage: cmake -DIN=index.html -DOUT=web_page.cpp -P embed.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(LENGTH "${hex}" hex_length)
math(EXPR length "${hex_length} / 2")
file(WRITE ${OUT} "// Generated from tools/serve/web/index.html by tools/serve/web/embed.cmake.\n"
  "#include \"tools/serve/web_page.hpp\"\n"
  "namespace kalah::serve {\n"
  "namespace { const unsigned char kBytes[] = {${bytes}}; }\n"
  "const std::string_view kWebPage(reinterpret_cast<const char*>(kBytes), ${length});\n"
  "}  // namespace kalah::serve\n")
