// stats_svg: hand-written SVG (no plotting tool): axes, ticks, stacked bars, a line, a legend.
#include "tools/cli/stats_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kalah::cli {
namespace {

constexpr double kWidth = 860, kPanelHeight = 300, kLeft = 70, kRight = 150, kTop = 50;
constexpr std::uint64_t kMinEntriesForBits = 4096;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

// Step for about `target` ticks between 0 and top: 1, 2 or 5 times a power of ten.
double tick_step(double top, int target) {
  const double raw = top / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

// The width of one level's bar in a panel of `count` levels.
double bar_width(std::size_t count) {
  return (kWidth - kLeft - kRight) / double(std::max<std::size_t>(count, 1));
}

struct Panel {
  double y0;      // top of the plot area
  double height;  // of the plot area
  double x_of(std::size_t i, std::size_t count) const {
    return kLeft + bar_width(count) * double(i);
  }
};

void axes(std::ostringstream& o, const Panel& p, const std::vector<LevelStats>& levels, double top,
          double step, const std::string& y_label, const std::string& title, bool percent) {
  const double x1 = kWidth - kRight, y1 = p.y0 + p.height;
  o << "<text x='" << kLeft << "' y='" << p.y0 - 12 << "' font-size='15' font-weight='bold'>"
    << escape(title) << "</text>\n";
  for (double v = 0; v <= top + 1e-9; v += step) {
    const double y = y1 - p.height * v / top;
    o << "<line x1='" << kLeft << "' y1='" << y << "' x2='" << x1 << "' y2='" << y
      << "' stroke='#ddd'/>\n"
      << "<text x='" << kLeft - 6 << "' y='" << y + 4 << "' font-size='11' text-anchor='end'>"
      << (percent ? num(v * 100) + "%" : num(v)) << "</text>\n";
  }
  o << "<line x1='" << kLeft << "' y1='" << y1 << "' x2='" << x1 << "' y2='" << y1
    << "' stroke='#000'/>\n<line x1='" << kLeft << "' y1='" << p.y0 << "' x2='" << kLeft << "' y2='"
    << y1 << "' stroke='#000'/>\n";
  const double w = (x1 - kLeft) / double(std::max<std::size_t>(levels.size(), 1));
  const std::size_t every = std::max<std::size_t>(1, std::size_t(std::ceil(24.0 / w)));
  for (std::size_t i = 0; i < levels.size(); i += every)
    o << "<text x='" << p.x_of(i, levels.size()) + w / 2 << "' y='" << y1 + 15
      << "' font-size='11' text-anchor='middle'>" << levels[i].n << "</text>\n";
  o << "<text x='" << (kLeft + x1) / 2 << "' y='" << y1 + 32
    << "' font-size='12' text-anchor='middle'>stones in pits (level n)</text>\n"
    << "<text transform='translate(" << kLeft - 48 << "," << p.y0 + p.height / 2
    << ") rotate(-90)' font-size='12' text-anchor='middle'>" << escape(y_label) << "</text>\n";
}

void legend(std::ostringstream& o, double x, double y, const char* color, const std::string& text) {
  o << "<rect x='" << x << "' y='" << y - 10 << "' width='12' height='12' fill='" << color
    << "'/>\n<text x='" << x + 18 << "' y='" << y << "' font-size='12'>" << escape(text)
    << "</text>\n";
}

// Panel 1: fractions of positive / zero / negative future margins, stacked, with their legend.
void wdl_panel(std::ostringstream& o, const Panel& wdl, const std::vector<LevelStats>& levels) {
  axes(o, wdl, levels, 1.0, 0.2, "fraction of positions",
       "Future margin for the side to move: positive / zero / negative", true);
  const double bar = bar_width(levels.size());
  const char* colors[3] = {"#2e7d32", "#9e9e9e", "#c62828"};
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const LevelStats& l = levels[i];
    if (l.entries == 0) continue;
    const double parts[3] = {double(l.positive), double(l.zero), double(l.negative)};
    double y = wdl.y0 + wdl.height;
    for (int k = 0; k < 3; ++k) {
      const double h = wdl.height * parts[k] / double(l.entries);
      y -= h;
      o << "<rect x='" << wdl.x_of(i, levels.size()) + bar * 0.1 << "' y='" << y << "' width='"
        << bar * 0.8 << "' height='" << h << "' fill='" << colors[k] << "'><title>level " << l.n
        << ": " << num(100 * parts[k] / double(l.entries)) << "%</title></rect>\n";
    }
  }
  const double lx = kWidth - kRight + 15;
  legend(o, lx, wdl.y0 + 12, colors[0], "positive (win)");
  legend(o, lx, wdl.y0 + 32, colors[1], "zero (draw)");
  legend(o, lx, wdl.y0 + 52, colors[2], "negative (loss)");
}

// Panel 2: stored bits per position, levels of kMinEntriesForBits entries or more.
void bits_panel(std::ostringstream& o, const Panel& bits, const std::vector<LevelStats>& levels) {
  double top = 0;
  for (const auto& l : levels)
    if (l.entries >= kMinEntriesForBits) top = std::max(top, l.bits_per_position());
  if (top <= 0) top = 1;
  const double step = tick_step(top, 5);
  top = std::ceil(top / step) * step;
  axes(o, bits, levels, top, step, "bits per position",
       "Stored size (zstd blocks + headers), bits per position", false);
  const double bar = bar_width(levels.size());
  std::string path;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const LevelStats& l = levels[i];
    if (l.entries < kMinEntriesForBits) continue;
    const double x = bits.x_of(i, levels.size()) + bar / 2;
    const double y = bits.y0 + bits.height * (1 - l.bits_per_position() / top);
    path += (path.empty() ? "M" : " L") + num(x) + " " + num(y);
    o << "<circle cx='" << x << "' cy='" << y << "' r='3.5' fill='#1565c0'><title>level " << l.n
      << ": " << num(l.bits_per_position()) << " bits/position</title></circle>\n";
  }
  if (!path.empty())
    o << "<path d='" << path << "' fill='none' stroke='#1565c0' stroke-width='2'/>\n";
  const double lx = kWidth - kRight + 15;
  o << "<text x='" << lx << "' y='" << bits.y0 + 12 << "' font-size='11'>levels under "
    << kMinEntriesForBits << "</text>\n<text x='" << lx << "' y='" << bits.y0 + 26
    << "' font-size='11'>entries not shown</text>\n";
}

}  // namespace

std::string stats_svg(const std::string& title, const std::vector<LevelStats>& levels) {
  const double height = kTop + 2 * (kPanelHeight + 90);
  std::ostringstream o;
  o << "<?xml version='1.0' encoding='UTF-8'?>\n"
    << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << height
    << "' viewBox='0 0 " << kWidth << " " << height << "' font-family='sans-serif'>\n"
    << "<rect width='100%' height='100%' fill='white'/>\n"
    << "<text x='" << kWidth / 2 << "' y='24' font-size='18' text-anchor='middle'>" << escape(title)
    << "</text>\n";

  const Panel wdl{kTop + 30, kPanelHeight};
  wdl_panel(o, wdl, levels);
  bits_panel(o, Panel{wdl.y0 + kPanelHeight + 90, kPanelHeight}, levels);
  o << "</svg>\n";
  return o.str();
}

}  // namespace kalah::cli
