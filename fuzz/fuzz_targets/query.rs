//! Query strings of the service's answer routes, read the way the server reads them (the
//! URI's query through axum's `Query`) into each route's parameters. Deserializing must
//! never panic, whatever the bytes.
#![no_main]

use axum::extract::Query;
use axum::http::Uri;
use libfuzzer_sys::fuzz_target;
use ms4::answer::{illicit::IllicitParams, nearby::NearbyParams, trace::TraceParams};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(uri) = format!("/api/x?{text}").parse::<Uri>() else {
        return;
    };
    let _ = Query::<NearbyParams>::try_from_uri(&uri);
    let _ = Query::<IllicitParams>::try_from_uri(&uri);
    let _ = Query::<TraceParams>::try_from_uri(&uri);
});
