// HttpSession: a connection's requests read, checked against HttpLimits, answered and logged.
#include "tools/serve/http_session.hpp"

#include <chrono>
#include <cstdint>
#include <iterator>
#include <limits>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace kalah::serve {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kAllow = "GET, HEAD, OPTIONS";

std::string_view view(beast::string_view s) {
  return {s.data(), s.size()};
}

std::string version_text(unsigned version) {
  return "HTTP/" + std::to_string(version / 10) + "." + std::to_string(version % 10);
}

// The peer's address as text, an IPv4 client of a dual-stack socket as IPv4.
std::string peer_text(const tcp::socket& socket) {
  beast::error_code ec;
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) return "";
  net::ip::address a = peer.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    a = net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
  return a.to_string();
}

// A response of `reply`'s status, headers and content type (its body not set).
template <class Body>
void set_header(http::response<Body>& res, const Reply& reply, bool keep_alive) {
  res.result(http::int_to_status(unsigned(reply.status)));
  for (const auto& [name, value] : reply.headers) res.set(name, value);
  if (!reply.content_type.empty()) res.set(http::field::content_type, reply.content_type);
  res.keep_alive(keep_alive);
}

}  // namespace

HttpSession::HttpSession(tcp::socket&& socket, ServerState& server)
    : stream_(std::move(socket)), buffer_(2 * HttpLimits::kHeaderBytes), server_(server) {
  peer_ = peer_text(stream_.socket());
}

HttpSession::~HttpSession() {
  server_.session_ended(this);
}

void HttpSession::start() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_request(); });
}

void HttpSession::stop_when_idle() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->closing_ = true;
    if (self->waiting_) self->stream_.cancel();  // the read ends, and with it the connection
  });
}

bool HttpSession::keep_alive() const {
  return client_keep_alive_ && !closing_ && !server_.stopping &&
         requests_ < HttpLimits::kRequestsPerConnection;
}

void HttpSession::read_request() {
  if (closing_ || server_.stopping) return close();
  parser_.emplace();
  parser_->header_limit(HttpLimits::kHeaderBytes);
  // Any announced body passes the header's parse, to be refused (405, 413) without being read.
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  waiting_ = true;
  read_started_ = Clock::now();
  stream_.expires_after(std::chrono::seconds(HttpLimits::kHeaderSeconds));
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
}

void HttpSession::on_header(beast::error_code ec) {
  waiting_ = false;
  head_ = false;
  record_ = RequestRecord{};
  record_.start = Clock::now();
  record_.client = peer_;
  if (!ec) return dispatch();
  record_.start = read_started_;  // a refusal's seconds count from the wait for its header
  const bool nothing_sent = !parser_->got_some() && buffer_.size() == 0;
  if (ec == beast::error::timeout && !nothing_sent) {
    // The timeout closed the socket: nothing can be answered, only logged.
    record_.status = 408;
    record_.bytes = 0;
    record_.error = "the request header did not arrive whole within " +
                    std::to_string(HttpLimits::kHeaderSeconds) + " s";
    server_.log.write(record_);
    return close();
  }
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow)
    return refuse(431, "the request line and header fields exceed " +
                           std::to_string(HttpLimits::kHeaderBytes) + " bytes");
  // Closed by the client (before a request, or within one), cancelled by stop(), timed out idle.
  if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
      ec == beast::error::timeout || ec == net::error::operation_aborted ||
      ec == net::error::connection_reset || ec == net::error::eof || closing_)
    return close();
  refuse(400, "malformed HTTP request (" + ec.message() + ")");
}

void HttpSession::dispatch() {
  const auto& h = parser_->get();
  record_.method = std::string(h.method_string());
  record_.target = std::string(h.target());
  record_.version = version_text(h.version());
  head_ = h.method() == http::verb::head;
  client_keep_alive_ = h.keep_alive();
  ++requests_;
  const std::string& client_header = server_.options.client_header;
  if (const auto it = client_header.empty() ? h.end() : h.find(client_header); it != h.end())
    record_.client = std::string(it->value());
  if (std::size_t(std::distance(h.begin(), h.end())) > HttpLimits::kHeaderFields)
    return refuse(431, "more than " + std::to_string(HttpLimits::kHeaderFields) + " header fields");
  const bool body =
      (parser_->content_length() && *parser_->content_length() > 0) || parser_->chunked();
  if (h.method() == http::verb::options && !body) {
    Reply r;
    r.status = 204;
    r.headers = {{"Allow", kAllow}};
    return send(std::move(r));
  }
  if (h.method() != http::verb::get && !head_)
    return refuse(405, "method " + record_.method + " not allowed: the server answers " + kAllow,
                  {{"Allow", kAllow}});
  if (body) return refuse(413, "a request body is not accepted (the API is GET only)");
  Request req;
  const std::string_view target = view(h.target());
  const std::size_t q = target.find('?');
  req.path = std::string(target.substr(0, q));
  req.query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
  req.client = record_.client;
  if (const auto it = h.find(http::field::accept_encoding); it != h.end())
    req.gzip = accepts_gzip(view(it->value()));
  if (std::optional<Reply> ready = answer_at_once(req, server_.routes))
    return send(std::move(*ready));
  // The work guard keeps the I/O threads running until the worker has handed its answer back.
  net::post(server_.workers, [self = shared_from_this(), req = std::move(req),
                              guard = net::make_work_guard(server_.io)]() mutable {
    self->answer_on_worker(std::move(req));
  });
}

void HttpSession::answer_on_worker(Request req) {
  Reply reply = answer(req, server_.routes);
  if (reply.stream && head_) reply.stream = nullptr;  // HEAD: the stream's header, no search
  if (!reply.stream) {
    net::post(stream_.get_executor(),
              [self = shared_from_this(), reply = std::move(reply)]() mutable {
                self->send(std::move(reply));
              });
    return;
  }
  bool written = stream_begin(reply);
  if (written) {
    try {
      reply.stream([&](std::string_view data) { return written = written && stream_write(data); });
    } catch (...) {
      written =
          false;  // nothing more can be said on a stream begun: it ends without its last chunk
    }
  }
  stream_end(written);
}

void HttpSession::send(Reply reply) {
  record_.status = reply.status;
  record_.error = reply.error;
  record_.bytes = reply.body.size();
  const bool keep = keep_alive();
  if (head_) {
    auto res = std::make_shared<http::response<http::empty_body>>();
    set_header(*res, reply, keep);
    res->content_length(reply.body.size());
    writing_ = res;
    stream_.expires_after(std::chrono::seconds(HttpLimits::kWriteSeconds));
    return http::async_write(stream_, *res,
                             [self = shared_from_this(), keep](beast::error_code ec, std::size_t) {
                               self->after_answer(ec, keep);
                             });
  }
  auto res = std::make_shared<http::response<http::string_body>>();
  set_header(*res, reply, keep);
  res->body() = std::move(reply.body);
  res->prepare_payload();
  writing_ = res;
  stream_.expires_after(std::chrono::seconds(HttpLimits::kWriteSeconds));
  http::async_write(stream_, *res,
                    [self = shared_from_this(), keep](beast::error_code ec, std::size_t) {
                      self->after_answer(ec, keep);
                    });
}

void HttpSession::after_answer(beast::error_code ec, bool keep_alive) {
  writing_.reset();
  server_.log.write(record_);
  if (ec) return close();
  if (lingering_) return linger();
  if (!keep_alive) return close();
  read_request();
}

void HttpSession::refuse(int status, const std::string& message,
                         std::vector<std::pair<std::string, std::string>> headers) {
  closing_ = true;
  lingering_ = true;
  Reply r = error_reply(status, message);
  r.headers.insert(r.headers.end(), headers.begin(), headers.end());
  send(std::move(r));
}

void HttpSession::linger() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) return close();
  stream_.expires_after(std::chrono::seconds(HttpLimits::kLingerSeconds));
  discard();
}

void HttpSession::discard() {
  buffer_.clear();
  stream_.async_read_some(buffer_.prepare(4096),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                            self->lingered_ += n;
                            if (ec || self->lingered_ >= HttpLimits::kLingerBytes)
                              return self->close();
                            self->discard();
                          });
}

void HttpSession::close() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
}

template <class Start>
bool HttpSession::on_strand_and_wait(Start start) {
  auto promise = std::make_shared<std::promise<bool>>();
  std::future<bool> done = promise->get_future();
  net::post(stream_.get_executor(), [start = std::move(start), promise]() mutable {
    start([promise](bool ok) { promise->set_value(ok); });
  });
  try {
    return done.get();
  } catch (const std::future_error&) {
    return false;  // the I/O threads dropped the write (they stopped)
  }
}

bool HttpSession::stream_begin(const Reply& reply) {
  return on_strand_and_wait([self = shared_from_this(), &reply](auto done) {
    self->record_.status = reply.status;
    self->record_.bytes.reset();  // "-": streamed
    auto res = std::make_shared<http::response<http::empty_body>>();
    set_header(*res, reply, self->keep_alive());
    res->chunked(true);
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*res);
    self->stream_.expires_after(std::chrono::seconds(HttpLimits::kWriteSeconds));
    http::async_write_header(
        self->stream_, *serializer,
        [res, serializer, done](beast::error_code ec, std::size_t) { done(!ec); });
  });
}

bool HttpSession::stream_write(std::string_view data) {
  return on_strand_and_wait([self = shared_from_this(), data](auto done) {
    self->stream_.expires_after(std::chrono::seconds(HttpLimits::kWriteSeconds));
    net::async_write(self->stream_, http::make_chunk(net::const_buffer(data.data(), data.size())),
                     [done](beast::error_code ec, std::size_t) { done(!ec); });
  });
}

void HttpSession::stream_end(bool written) {
  net::post(stream_.get_executor(), [self = shared_from_this(), written] {
    if (!written) {
      self->server_.log.write(self->record_);
      return self->close();
    }
    const bool keep = self->keep_alive();
    self->stream_.expires_after(std::chrono::seconds(HttpLimits::kWriteSeconds));
    net::async_write(
        self->stream_, http::make_chunk_last(),
        [self, keep](beast::error_code ec, std::size_t) { self->after_answer(ec, keep); });
  });
}

}  // namespace kalah::serve
