//! What an embedder carries for the protocol: one HTTP exchange. It sends the request as
//! given (no redirects followed, nothing added) and answers the status and the body text, or
//! says why there is no answer. The deadline is the request's `timeout_ms`.

/// The HTTP methods OpenViking's API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    /// Absolute URL, path and query already encoded.
    pub url: String,
    /// Header name and value pairs; may include `X-API-Key` (never print them).
    pub headers: Vec<(String, String)>,
    /// JSON text, sent with `Content-Type: application/json`.
    pub body: Option<String>,
    /// The embedder gives up after this long and answers [`TransportFailure::Timeout`].
    pub timeout_ms: u64,
}

impl std::fmt::Debug for HttpRequest {
    // headers are left out: one of them is the key
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRequest").field("method", &self.method).field("url", &self.url).field("timeout_ms", &self.timeout_ms).finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// Why there is no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportFailure {
    /// Refused, reset, DNS, CORS, or the embedder would not send it (an unverified local
    /// server): the detail is the embedder's short reason (it is redacted before use).
    Unreachable(String),
    /// No complete answer within the request's `timeout_ms`.
    Timeout,
    /// The embedder answered something that is not a status and a body text.
    Malformed(String),
    /// Not sent: the server did not answer a request lately ([`super::pause`]); asked again
    /// in `retry_in_ms`.
    Paused { retry_in_ms: u64 },
}

/// One HTTP exchange, done by the embedder.
#[allow(async_fn_in_trait)]
pub trait Transport {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportFailure>;
}
