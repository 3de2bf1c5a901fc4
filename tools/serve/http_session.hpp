// One HTTP/1.1 connection of `kalah serve`: its requests read within HttpLimits, answered one at
// a time, the connection kept alive or closed.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>

#include "tools/serve/request_log.hpp"
#include "tools/serve/routes.hpp"
#include "tools/serve/server_state.hpp"

namespace kalah::serve {

namespace beast = boost::beast;
namespace http = beast::http;

// Lives while its connection is open (held by its pending operation or the worker answering it).
// Every member is used on the connection's strand only; a worker answering a request reads what
// dispatch() set before handing it over (head_), and asks the strand for each write of a stream.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, ServerState& server);
  ~HttpSession();

  void start();
  // From any thread: closes the connection now if it waits for a request, else after its answer.
  void stop_when_idle();

 private:
  void read_request();
  void on_header(beast::error_code ec);
  // The request's header is whole: refused, answered at once, or given to a worker.
  void dispatch();
  void answer_on_worker(Request req);
  // Writes `reply` (its body unless HEAD), then reads the next request or closes.
  void send(Reply reply);
  void after_answer(beast::error_code ec, bool keep_alive);
  // Refuses the request: `status` and its error, then a lingering close.
  void refuse(int status, const std::string& message,
              std::vector<std::pair<std::string, std::string>> headers = {});
  // Shuts the sending side, then reads and discards what the client still sends, within
  // HttpLimits::kLingerSeconds and kLingerBytes, before closing.
  void linger();
  void discard();
  void close();

  // A streamed answer's parts, from the worker: each waits until written; false when it failed.
  bool stream_begin(const Reply& reply);
  bool stream_write(std::string_view data);
  void stream_end(bool written);
  // Runs `start(done)` on the strand and waits for done(ok); false when the connection is gone.
  template <class Start>
  bool on_strand_and_wait(Start start);

  // Whether the answer under way keeps the connection open for another request.
  bool keep_alive() const;

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  ServerState& server_;
  std::string peer_;
  int requests_ = 0;
  bool waiting_ = false;    // reading a request's header (idle between requests)
  bool closing_ = false;    // close after the answer under way
  bool lingering_ = false;  // ... and linger first (a refused request may still be sending)
  bool head_ = false;       // the request under way is HEAD
  bool client_keep_alive_ = false;
  RequestRecord record_;                                // the request under way, for the logs
  std::chrono::steady_clock::time_point read_started_;  // when the wait for its header began
  std::shared_ptr<void> writing_;                       // what an async write under way reads from
  std::size_t lingered_ = 0;
};

}  // namespace kalah::serve
