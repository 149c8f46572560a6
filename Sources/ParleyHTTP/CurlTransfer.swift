import CCurl
import Foundation

/// One request on its libcurl easy handle: the options, the answer collected by the callbacks,
/// the continuation to resume. Built by the caller, then owned by the loop thread (the only
/// one to touch the handle and the buffers after `CurlLoop.submit`); `cancelRequested` and
/// `submitted` are guarded by the loop's lock.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    var continuation: CheckedContinuation<HTTPResponse, any Error>?
    var cancelRequested = false
    var submitted = false

    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var body = Data()
    private var headers: [String: String] = [:]
    private var refused = false

    init(request: HTTPRequest) {
        self.request = request
        errorBuffer[0] = 0
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Sets every option on `reused` (a handle reset after an earlier transfer) or on a new
    /// handle; nil, or the reason when libcurl refused an option.
    func makeHandle(reusing reused: UnsafeMutableRawPointer?) -> HTTPFailure? {
        guard let easy = reused ?? curl_easy_init() else { return .network("libcurl could not create a handle") }
        self.easy = easy
        let context = Unmanaged.passUnretained(self).toOpaque()
        var failed = false
        func check(_ code: CURLcode) { if code != CURLE_OK { failed = true } }
        check(parley_curl_setopt_pointer(easy, CURLOPT_URL, request.url))
        check(parley_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        check(parley_curl_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(parley_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout)))
        check(parley_curl_setopt_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.responseLimit)))
        check(parley_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        check(parley_curl_setopt_pointer(easy, CURLOPT_USERAGENT, "Parley"))
        check(parley_curl_setopt_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody))
        check(parley_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        check(parley_curl_setopt_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader))
        check(parley_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        // Without an empty "Expect:" libcurl holds back a body over 1 KiB for a 100-continue
        // answer: a round trip (or a second of waiting) per upload.
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for header in request.headers { list = curl_slist_append(list, "\(header.name): \(header.value)") }
        headerList = list
        check(parley_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, list))
        if let body = request.body {
            check(parley_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            check(body.withUnsafeBytes { bytes in
                guard let start = bytes.baseAddress else { return parley_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, "") }
                return parley_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, start)
            })
            if request.method != "POST" { check(parley_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, request.method)) }
        } else if request.method == "GET" {
            check(parley_curl_setopt_long(easy, CURLOPT_HTTPGET, 1))
        } else {
            check(parley_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        return failed ? .network("libcurl refused an option of \(request.method) \(request.url)") : nil
    }

    /// The outcome once libcurl is done with the handle (`code`); then `takeHandle()`.
    func finish(_ code: CURLcode) -> Result<HTTPResponse, HTTPFailure> {
        var status = 0, connects = 0
        if let easy {
            _ = parley_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            _ = parley_curl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        }
        if refused || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge(limit: request.responseLimit)) }
        switch code {
        case CURLE_OK: return .success(HTTPResponse(status: status, headers: headers, body: body, reusedConnection: connects == 0))
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timeout)
        default:
            let detail = String(cString: errorBuffer)
            return .failure(.network(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
    }

    /// Hands the handle back, reset to libcurl's defaults (nothing of this request stays on
    /// it), and frees the header list; after `curl_multi_remove_handle`.
    func takeHandle() -> UnsafeMutableRawPointer? {
        curl_slist_free_all(headerList)
        headerList = nil
        guard let easy else { return nil }
        self.easy = nil
        curl_easy_reset(easy)
        return easy
    }

    /// Body bytes; false (stop the transfer) once they pass the limit.
    fileprivate func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= request.responseLimit else {
            refused = true
            body = Data()
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line; a status line starts a new set (after a `100 Continue`). (A
    /// `Content-Length` over the limit is refused by libcurl itself, `CURLOPT_MAXFILESIZE_LARGE`,
    /// before any body byte is read.) Read as bytes: Foundation's trimming and case mapping
    /// cost more than the rest of a request.
    fileprivate func takeHeader(_ bytes: UnsafeRawBufferPointer) {
        if bytes.starts(with: "HTTP/".utf8) {
            headers = [:]
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        if let kept = request.keptHeaders, !kept.contains(where: { Self.isName($0, bytes[..<colon]) }) { return }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = colon + 1, end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: bytes[..<colon].lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        headers[name] = value
    }

    /// Whether `bytes` spell the lower-cased `name` in any case.
    private static func isName(_ name: String, _ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        name.utf8.count == bytes.count
            && zip(name.utf8, bytes).allSatisfy { expected, byte in (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

/// libcurl's write callback: `context` is the transfer (kept alive by the loop while active).
private let curlWriteBody: parley_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.take(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's header callback: one line at a time, with its CRLF.
private let curlWriteHeader: parley_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    transfer.takeHeader(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
