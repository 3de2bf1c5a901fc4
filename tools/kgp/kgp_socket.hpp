// TCP sockets for both sides of KGP: a client's connection, a server's listening socket, a peer's
// numeric address.
#pragma once

#include <sys/socket.h>

#include <string>

namespace kalah::kgp {

// A connected TCP socket to host:port (TCP_NODELAY set), or -1 with the reason in `why`.
int connect_to(const std::string& host, const std::string& port, std::string& why);

// A socket listening on host:port (SO_REUSEADDR set; port "0": a free one), or -1 with the
// reason in `why`.
int listen_on(const std::string& host, const std::string& port, std::string& why);

// "ADDRESS:PORT" of a socket address, numerically; "?" when it has none.
std::string numeric_address(const sockaddr_storage& address, socklen_t length);

}  // namespace kalah::kgp
