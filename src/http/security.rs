//! The headers every answer of the service carries, so a browser treats each one only as
//! what it is: no content sniffing, no framing by another page, no referrer sent on,
//! and a `Content-Security-Policy` that lets a JSON answer, a tile or an error load and
//! run nothing (an HTML notice: its own inline style too). The page's own files get a
//! policy that lets the map work from this origin only (and the town's basemap server,
//! when one is configured); a photo keeps the sandboxing policy its handler gives it.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::Response;

use super::ServeConfig;

/// The policy of answers that are data (JSON, tiles, sprites, errors): a browser that
/// opens one as a document loads and runs nothing, and no page frames it.
pub(super) const DATA_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

/// The policy of the other HTML the service writes (a case's notice, the page saying it
/// was not built): their own `<style>` and nothing else. Inline style runs no script, and
/// with nothing loadable it cannot carry anything away.
pub(super) const DOCUMENT_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The same headers as raw HTTP/1.1 lines, for the answers written before a request
/// reaches the router (over the connection cap, an unreadable request head).
pub(super) const RAW_LINES: &str = "x-content-type-options: nosniff\r\n\
     referrer-policy: no-referrer\r\nx-frame-options: DENY\r\n\
     content-security-policy: default-src 'none'; frame-ancestors 'none'\r\n";

/// Marks a response as one of the page's own files (its HTML, service worker and
/// manifest): they get the page's policy. A service worker's fetches are held to the
/// policy its script was served with, so `sw.js` needs the page's `connect-src`.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageFile;

/// The policies, made once from the configuration.
#[derive(Debug, Clone)]
pub(super) struct Policies {
    page: HeaderValue,
}

impl Policies {
    pub(super) fn new(config: &ServeConfig) -> Arc<Self> {
        Arc::new(Policies {
            page: HeaderValue::from_str(&page_csp(config.basemap_url.as_deref()))
                .expect("origins serialize to header-safe ASCII"),
        })
    }
}

/// The page's policy, the tightest every browser flow passes under (`tests/web/*.mjs`
/// fail on any refusal): scripts, styles, the manifest and MapLibre's module worker from
/// this origin only (MapLibre 6 starts its worker from a file beside the bundle, and sets
/// styles through the CSSOM, so neither `blob:` workers nor inline styles are needed);
/// images also from `data:` and `blob:` (MapLibre's fallback where `createImageBitmap`
/// is missing draws tiles through `blob:` URLs); no plugins, no `<base>`, no form posted
/// anywhere (the sign-in form is read by script: should that script fail, the token must
/// not go into a URL). The basemap's origin joins `img-src` and `connect-src` when set.
fn page_csp(basemap_url: Option<&str>) -> String {
    let basemap = basemap_url
        .and_then(|u| url::Url::parse(u).ok())
        .filter(|u| matches!(u.scheme(), "https" | "http"))
        .map(|u| u.origin().ascii_serialization())
        // A host may hold `;` or `,`, which would end the source list.
        .filter(|o| {
            o.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:/[]".contains(&b))
        })
        .map(|o| format!(" {o}"))
        .unwrap_or_default();
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; \
         img-src 'self' data: blob:{basemap}; connect-src 'self'{basemap}; \
         worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'"
    )
}

/// The middleware: the headers every answer carries, the policy by what the answer is.
pub(super) async fn baseline(State(p): State<Arc<Policies>>, mut res: Response) -> Response {
    let page = res.extensions().get::<PageFile>().is_some();
    let h = res.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Page URLs name what is selected or drawn; nothing outside needs to see them.
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // For browsers that predate `frame-ancestors`.
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if page {
        h.insert(header::CONTENT_SECURITY_POLICY, p.page.clone());
    } else if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        let html = h
            .get(header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/html"));
        let csp = if html { DOCUMENT_CSP } else { DATA_CSP };
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        );
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_may_reach_the_basemaps_origin_and_nothing_else_outside() {
        let csp = page_csp(Some(
            "https://gis.town.example:8443/basemap/{z}/{x}/{y}.png",
        ));
        assert!(
            csp.contains("img-src 'self' data: blob: https://gis.town.example:8443;"),
            "{csp}"
        );
        assert!(
            csp.contains("connect-src 'self' https://gis.town.example:8443;"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        let none = page_csp(None);
        assert!(none.contains("connect-src 'self';"), "{none}");
    }

    #[test]
    fn a_basemap_url_cannot_write_into_the_policy() {
        for u in [
            "javascript:alert(1)",
            "data:text/html,x",
            "/relative/{z}/{x}/{y}.png",
            "not a url; script-src *",
        ] {
            assert_eq!(page_csp(Some(u)), page_csp(None), "{u}");
        }
        let odd = page_csp(Some("https://a.example;script-src-elem/{z}.png"));
        assert!(!odd.contains("script-src-elem"), "{odd}");
    }

    async fn policy_of(res: Response) -> String {
        let p = Policies::new(&ServeConfig::default());
        let res = baseline(State(p), res).await;
        assert_eq!(res.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        res.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_string()
    }

    #[tokio::test]
    async fn each_kind_of_answer_gets_its_policy() {
        use axum::response::IntoResponse;
        let json = axum::Json(serde_json::json!({})).into_response();
        assert_eq!(policy_of(json).await, DATA_CSP);
        let notice = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], "<p>").into_response();
        assert_eq!(policy_of(notice).await, DOCUMENT_CSP);
        let mut page = ([(header::CONTENT_TYPE, "text/html")], "<p>").into_response();
        page.extensions_mut().insert(PageFile);
        assert!(policy_of(page).await.contains("script-src 'self'"));
        let own = ([(header::CONTENT_SECURITY_POLICY, "sandbox")], "x").into_response();
        assert_eq!(policy_of(own).await, "sandbox");
    }

    #[test]
    fn the_raw_lines_say_what_the_middleware_says() {
        assert!(RAW_LINES.contains(DATA_CSP));
    }
}
