#ifndef PARLEY_CMICROHTTPD_SHIM_H
#define PARLEY_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon, MHD_get_connection_info and MHD_get_daemon_info are variadic, which Swift
// cannot call: one typed wrapper per call Parley makes.

/// What ParleyHTTPServer starts a daemon with; `context` goes to every callback.
struct parley_mhd_settings {
    unsigned int flags;
    const struct sockaddr *address;
    MHD_AcceptPolicyCallback accept;
    MHD_AccessHandlerCallback handler;
    MHD_RequestCompletedCallback completed;
    MHD_NotifyConnectionCallback connection;
    void *context;
    size_t connection_memory;
    unsigned int connection_limit;
    unsigned int per_address_limit;
    unsigned int timeout_seconds;
};

/// MHD_start_daemon with `settings`: the address to bind, the callbacks, the per-connection
/// memory, the connection limits and the idle timeout.
static inline struct MHD_Daemon *parley_mhd_start(const struct parley_mhd_settings *settings) {
    return MHD_start_daemon(settings->flags, 0, settings->accept, settings->context, settings->handler, settings->context,
                            MHD_OPTION_SOCK_ADDR, settings->address,
                            MHD_OPTION_NOTIFY_COMPLETED, settings->completed, settings->context,
                            MHD_OPTION_NOTIFY_CONNECTION, settings->connection, settings->context,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connection_memory,
                            MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, settings->timeout_seconds,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system picked for port 0); 0 if unknown.
static inline uint16_t parley_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// The client's address (a sockaddr_in or sockaddr_in6), or NULL.
static inline const struct sockaddr *parley_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// The connection's socket, or -1.
static inline int parley_mhd_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}
#endif
