import ParleyHTTPServer

/// A request that cannot go on, with its answer (an `{"error": …}` of `OperationsRoutes`): what
/// the checks a route runs first (a path's number, credentials) return instead of a value.
struct HTTPRefusal: Error {
    var response: HTTPServerResponse

    init(_ status: Int, _ message: String) { response = OperationsRoutes.error(status, message) }

    init(response: HTTPServerResponse) { self.response = response }
}
