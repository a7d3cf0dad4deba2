//! The base URL of absolute links (OGC API `links`, `next` pages).
//!
//! A request's `Host` header is the client's to choose: echoed into links it lets anyone
//! make the service hand out links to another site (cache poisoning, phishing through a
//! shared proxy). It is used only when it is one of the configured names; otherwise links
//! start with `--public-url`, or else the address the server listens on.

use axum::http::{header, HeaderMap};

use super::ServeConfig;

/// The scheme, authority and path links start with, without a trailing slash: a
/// coalition's member served under `/r/{name}` has that path in every link.
pub(super) fn base(config: &ServeConfig, headers: &HeaderMap) -> String {
    format!("{}{}", origin(config, headers), config.path_prefix)
}

fn origin(config: &ServeConfig, headers: &HeaderMap) -> String {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if let Some(h) = host {
        if config
            .allowed_hosts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(h.trim()))
        {
            let scheme = config
                .public_url
                .as_deref()
                .and_then(|u| u.split_once("://"))
                .map_or("http", |(s, _)| s);
            return format!("{scheme}://{}", h.trim());
        }
    }
    if let Some(u) = &config.public_url {
        return u.trim_end_matches('/').to_string();
    }
    match config.listen_addr {
        Some(a) => format!("http://{a}"),
        None => "http://127.0.0.1".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(h: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::HOST, h.parse().unwrap());
        m
    }

    #[test]
    fn only_configured_host_names_reach_links() {
        let mut c = ServeConfig {
            listen_addr: Some("127.0.0.1:8080".parse().unwrap()),
            ..Default::default()
        };
        assert_eq!(base(&c, &host("evil.example")), "http://127.0.0.1:8080");
        c.public_url = Some("https://ms4.town.example/".into());
        assert_eq!(base(&c, &host("evil.example")), "https://ms4.town.example");
        c.allowed_hosts = vec!["gis.town.example".into()];
        assert_eq!(
            base(&c, &host("gis.town.example")),
            "https://gis.town.example"
        );
        c.path_prefix = "/r/carmel".into();
        assert_eq!(
            base(&c, &host("gis.town.example")),
            "https://gis.town.example/r/carmel"
        );
        assert_eq!(
            base(&c, &host("evil.example")),
            "https://ms4.town.example/r/carmel"
        );
    }
}
