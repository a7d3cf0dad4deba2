//! The first bytes of an uploaded photo, as anyone with an inspector's token can send
//! them. Reading their kind must never panic; a kind it accepts is an image type that
//! names itself back, is never markup, and stays the same whatever follows the signature
//! (the check reads signatures only: what comes after is made inert where photos are
//! served, not here); a refusal says something.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::domain::photo::{sniff, PhotoError, PhotoKind};
use ms4::store::photos::NewPhoto;

fuzz_target!(|data: &[u8]| {
    match sniff(data) {
        Ok(kind) => {
            assert!(kind.media_type().starts_with("image/"));
            assert_eq!(PhotoKind::from_media_type(kind.media_type()), Some(kind));
            assert!(!data.trim_ascii_start().starts_with(b"<"));
            let mut more = data.to_vec();
            more.extend_from_slice(b"<html><script>alert(1)</script>");
            assert_eq!(sniff(&more), Ok(kind));
            let photo = NewPhoto::new("I-1", data.to_vec()).expect("sniffed as an image");
            assert_eq!(photo.content_type(), kind.media_type());
        }
        Err(e) => {
            assert!(!e.to_string().trim().is_empty());
            assert_eq!(data.is_empty(), e == PhotoError::Empty);
            if let PhotoError::Truncated(n, _) = e {
                assert_eq!(n, data.len());
            }
            assert!(NewPhoto::new("I-1", data.to_vec()).is_err());
        }
    }
});
