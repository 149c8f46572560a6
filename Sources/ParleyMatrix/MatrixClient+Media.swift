import Foundation
import ParleyCore

/// The media repository: upload a file, download it back (authenticated media, Matrix v1.11).
extension MatrixClient {
    /// `POST /_matrix/media/v3/upload`; returns the `mxc://` URI of the stored file. No
    /// filename for an encrypted file: the server would see it in clear.
    public func upload(_ data: Data, contentType: String, filename: String?) async throws -> String {
        let answer = try await rawRequest("POST", "/_matrix/media/v3/upload", query: filename.map { [("filename", $0)] } ?? [], body: data,
                                          contentType: contentType)
        guard let uri = (try? JSONValue.parse(answer))?["content_uri"]?.stringValue else {
            throw ParleyError(.serverError, "the upload answer lacks content_uri", context: ["path": "/_matrix/media/v3/upload"])
        }
        return uri
    }

    /// `GET /_matrix/client/v1/media/download/{server}/{id}` of an `mxc://server/id` URI.
    public func download(_ uri: String) async throws -> Data {
        let parts = uri.hasPrefix("mxc://") ? uri.dropFirst(6).split(separator: "/", maxSplits: 1).map(String.init) : []
        guard parts.count == 2 else {
            throw ParleyError(.invalidArgument, "not an mxc:// URI: \(uri)", context: ["field": "url"])
        }
        return try await rawRequest("GET", Self.clientPath(version: "v1", ["media", "download", parts[0], parts[1]]))
    }
}
