//! The accept loop: hyper's HTTP/1 server under the axum router, with the limits
//! `axum::serve` has no knobs for.
//!
//! - A header-read timeout: a connection that sends no complete request head within
//!   [`ServeConfig::header_timeout`] (an idle keep-alive one included) is closed, so
//!   half-open sockets cannot pile up until the process runs out of file descriptors.
//! - A connection cap: past [`ServeConfig::max_connections`] a new connection is answered
//!   503 at once and closed, so the server keeps descriptors for the requests it serves.
//! - hyper's own refusals (414 URI too long, 431 headers too large, 400 unparsable) carry
//!   no body; [`JsonErrors`] gives them the same JSON body as every other error.
//! - Graceful shutdown: on Ctrl-C or SIGTERM no new connection is accepted and those in
//!   flight finish (for at most [`SHUTDOWN_GRACE`]). A read still running two seconds
//!   before the end is stopped ([`crate::import::cancel::shut_down`]) and its request answered
//!   503; then the process ends, whatever its blocking threads are doing (see `main`).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::ServeConfig;

/// How long connections in flight may take to finish once shutdown is asked for: enough
/// for an answer or a small upload, short enough that a service manager's stop (systemd
/// waits 90 s, Docker 10 s before it kills) finds the process gone.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// When, within the grace, reads still running (an upload, a footprint file) are stopped,
/// leaving their requests two seconds to be answered. (One was too few on a busy machine:
/// a read stopped on a blocking thread that two other processes kept from the cores
/// noticed too late, and its client saw the connection close instead of the 503.)
const STOP_READS_AFTER: Duration = Duration::from_secs(3);

/// The largest request head hyper buffers (hyper's default is about 400 KB).
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Serves `router` on `listener` until `shutdown` completes.
pub async fn run(
    listener: TcpListener,
    router: axum::Router,
    config: &ServeConfig,
    shutdown: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_buf_size(MAX_HEAD_BYTES.max(8192))
        .keep_alive(true);
    let builder = Arc::new(builder);
    let permits = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            // Shutdown first: once asked for, no connection waiting is taken on.
            biased;
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors (EMFILE) or a connection reset before accept:
                    // wait a little rather than spin, and keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracing::warn!(%peer, "connection cap reached; answering 503");
            tokio::spawn(refuse_busy(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let conn = builder.serve_connection(TokioIo::new(JsonErrors::new(stream)), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(%peer, error = %e, "connection ended");
            }
            drop(permit);
        });
    }
    drop(listener);
    let closed = graceful.shutdown();
    tokio::pin!(closed);
    if tokio::time::timeout(STOP_READS_AFTER, &mut closed)
        .await
        .is_err()
    {
        // Reads on blocking threads do not end with their requests' futures: stopped
        // now, their requests are still answered (503) before the connections close.
        crate::import::cancel::shut_down();
        if tokio::time::timeout(SHUTDOWN_GRACE - STOP_READS_AFTER, closed)
            .await
            .is_err()
        {
            tracing::warn!("connections still open {SHUTDOWN_GRACE:?} after shutdown was asked for; closing them");
        }
    }
    crate::import::cancel::shut_down();
    Ok(())
}

/// A JSON error response with a fixed body, as raw HTTP/1.1 bytes.
fn raw_response(status: u16, reason: &str, message: &str, extra: &str) -> Vec<u8> {
    let body = serde_json::json!({"error": message, "status": status}).to_string();
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{}{extra}\r\n{body}",
        body.len(),
        super::security::RAW_LINES,
    )
    .into_bytes()
}

/// Answers a connection over the cap with a 503 and closes it.
async fn refuse_busy(mut stream: tokio::net::TcpStream) {
    let bytes = raw_response(
        503,
        "Service Unavailable",
        "the server has as many connections open as it accepts; retry in a moment",
        "retry-after: 1\r\n",
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = stream.write_all(&bytes).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// The JSON body for a bodiless error head hyper writes itself, by status.
fn body_for(status: u16) -> Option<(&'static str, &'static str)> {
    Some(match status {
        400 => (
            "Bad Request",
            "the request is not valid HTTP/1.1 (its request line or a header cannot be read)",
        ),
        414 => (
            "URI Too Long",
            "the URI is too long: send long parameters in a POST body",
        ),
        431 => (
            "Request Header Fields Too Large",
            "the request's headers are too large or too many",
        ),
        _ => return None,
    })
}

/// A socket whose bodiless 4xx heads written by hyper get a JSON body.
///
/// The router never answers an error without a body, so an error head with
/// `content-length: 0` can only be hyper's own (it writes them in one buffer, and closes
/// the connection after them); that head is swapped for a full JSON response.
pub struct JsonErrors<S> {
    inner: S,
    /// A replacement still to be written, and how much of it is out.
    pending: Option<(Vec<u8>, usize)>,
}

impl<S> JsonErrors<S> {
    /// Wraps a socket.
    pub fn new(inner: S) -> Self {
        JsonErrors {
            inner,
            pending: None,
        }
    }
}

/// The replacement for `buf` when it is one of hyper's bodiless error heads.
fn replacement(buf: &[u8]) -> Option<Vec<u8>> {
    let head = std::str::from_utf8(buf.get(..buf.len().min(512))?).ok()?;
    let status: u16 = head.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    let (reason, message) = body_for(status)?;
    let lower = head.to_ascii_lowercase();
    if !lower.contains("\r\ncontent-length: 0\r\n") || !lower.ends_with("\r\n\r\n") {
        return None;
    }
    Some(raw_response(status, reason, message, ""))
}

impl<S: AsyncWrite + Unpin> JsonErrors<S> {
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, done)) = self.pending.as_mut() {
            if *done == bytes.len() {
                self.pending = None;
                break;
            }
            let n = std::task::ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*done..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *done += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonErrors<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonErrors<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        std::task::ready!(self.poll_pending(cx))?;
        if let Some(bytes) = replacement(buf) {
            self.pending = Some((bytes, 0));
            // Written or not yet, the caller's bytes are taken: the rest goes out on the
            // next write or flush.
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_bodiless_error_heads_get_a_json_body() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 10:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(replacement(head).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 431 "), "{out}");
        let body = out.split("\r\n\r\n").nth(1).unwrap();
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["status"], 431);
        assert!(out.contains(&format!("content-length: {}\r\n", body.len())));
        // A response of the router's own, with a body, is left alone.
        assert!(replacement(b"HTTP/1.1 404 Not Found\r\ncontent-length: 20\r\n\r\n").is_none());
        assert!(replacement(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
    }
}
