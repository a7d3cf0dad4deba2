//! What kind of image an inspection photo is, read from its bytes alone.
//!
//! A client's `Content-Type` or a file's name is a claim anyone can make; a page served
//! from the service's origin under a claimed `image/svg+xml` or `text/html` type runs
//! script with the signed-in user's token in reach. So a photo is taken only when its
//! first bytes are the signature of a JPEG, PNG, WebP or HEIC/HEIF image (what phone
//! cameras write), and it is stored and served with the type those bytes name.
//!
//! The check reads signatures, not whole images: bytes with a valid signature and
//! something else after it (a PNG with a script appended, a JPEG/HTML polyglot) pass, and
//! are made harmless where they are served (`nosniff`, a sandboxing CSP, the image type).
//! Decoding every image to prove it whole would put an image decoder, and its bugs, on
//! the upload path for no gain in safety.
//!
//! AVIF is refused: no camera the inspectors use writes it, and it is not in the list of
//! accepted types; its signature is recognised so the refusal can say what it was.

/// An accepted photo's image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhotoKind {
    /// JPEG (JFIF, Exif or raw), `FF D8 FF` then a marker.
    Jpeg,
    /// PNG, its eight-byte signature.
    Png,
    /// WebP: a RIFF container of form `WEBP` with a VP8, VP8L or VP8X chunk.
    Webp,
    /// A HEVC-coded HEIF still image (`ftyp` brand `heic`, `heix`, `heim`, `heis`).
    Heic,
    /// A HEVC-coded HEIF image sequence (`hevc`, `hevx`, `hevm`, `hevs`).
    HeicSequence,
    /// A HEIF still image of another codec (`mif1`).
    Heif,
    /// A HEIF image sequence of another codec (`msf1`).
    HeifSequence,
}

/// Why bytes are not taken as a photo; the message says what they look like instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhotoError {
    /// No bytes at all.
    #[error("empty: no image bytes")]
    Empty,
    /// The bytes start like an accepted format but stop before its signature ends.
    #[error("{0} bytes start like a {1} image but end before its header does")]
    Truncated(usize, &'static str),
    /// A recognised format that is not taken.
    #[error("the bytes are {0}, not a JPEG, PNG, WebP or HEIC/HEIF image")]
    Refused(&'static str),
    /// Nothing recognised.
    #[error("the bytes are not a JPEG, PNG, WebP or HEIC/HEIF image")]
    Unknown,
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
const WEBP_CHUNKS: [&[u8]; 3] = [b"VP8 ", b"VP8L", b"VP8X"];
/// A `ftyp` box longer than this is not a still image's; no real file comes close.
const MAX_FTYP: usize = 4096;

impl PhotoKind {
    /// Every accepted kind.
    pub const ALL: [PhotoKind; 7] = [
        PhotoKind::Jpeg,
        PhotoKind::Png,
        PhotoKind::Webp,
        PhotoKind::Heic,
        PhotoKind::HeicSequence,
        PhotoKind::Heif,
        PhotoKind::HeifSequence,
    ];

    /// The registered media type.
    pub fn media_type(self) -> &'static str {
        match self {
            PhotoKind::Jpeg => "image/jpeg",
            PhotoKind::Png => "image/png",
            PhotoKind::Webp => "image/webp",
            PhotoKind::Heic => "image/heic",
            PhotoKind::HeicSequence => "image/heic-sequence",
            PhotoKind::Heif => "image/heif",
            PhotoKind::HeifSequence => "image/heif-sequence",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            PhotoKind::Jpeg => "jpg",
            PhotoKind::Png => "png",
            PhotoKind::Webp => "webp",
            PhotoKind::Heic => "heic",
            PhotoKind::HeicSequence => "heics",
            PhotoKind::Heif => "heif",
            PhotoKind::HeifSequence => "heifs",
        }
    }

    /// The kind a media type names (parameters and case ignored); `None` for any other.
    pub fn from_media_type(media_type: &str) -> Option<PhotoKind> {
        let t = media_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        // `image/jpg` is not registered but is what many programs say.
        if t == "image/jpg" || t == "image/pjpeg" {
            return Some(PhotoKind::Jpeg);
        }
        PhotoKind::ALL.into_iter().find(|k| k.media_type() == t)
    }

    /// The kind a file extension names (without the dot, any case); `None` for any other.
    pub fn from_extension(ext: &str) -> Option<PhotoKind> {
        Some(match ext.to_ascii_lowercase().as_str() {
            "jpg" | "jpeg" | "jpe" | "jfif" => PhotoKind::Jpeg,
            "png" => PhotoKind::Png,
            "webp" => PhotoKind::Webp,
            "heic" | "hif" => PhotoKind::Heic,
            "heics" => PhotoKind::HeicSequence,
            "heif" => PhotoKind::Heif,
            "heifs" => PhotoKind::HeifSequence,
            _ => return None,
        })
    }

    /// A short name for messages (`JPEG`, `HEIC`).
    pub fn name(self) -> &'static str {
        match self {
            PhotoKind::Jpeg => "JPEG",
            PhotoKind::Png => "PNG",
            PhotoKind::Webp => "WebP",
            PhotoKind::Heic => "HEIC",
            PhotoKind::HeicSequence => "HEIC sequence",
            PhotoKind::Heif => "HEIF",
            PhotoKind::HeifSequence => "HEIF sequence",
        }
    }
}

impl std::fmt::Display for PhotoKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of image `bytes` are, from their signature; any other bytes are refused with
/// what they look like.
pub fn sniff(bytes: &[u8]) -> Result<PhotoKind, PhotoError> {
    if bytes.is_empty() {
        return Err(PhotoError::Empty);
    }
    let truncated = |name| Err(PhotoError::Truncated(bytes.len(), name));
    // Start of image, then the first segment's marker: APPn, DQT, SOFn, DHT, COM...
    match bytes {
        [0xFF, 0xD8, 0xFF, 0xC0..=0xFE, ..] => return Ok(PhotoKind::Jpeg),
        [0xFF] | [0xFF, 0xD8] | [0xFF, 0xD8, 0xFF] => return truncated("JPEG"),
        [0xFF, 0xD8, ..] => return Err(PhotoError::Unknown),
        _ => {}
    }
    if bytes.starts_with(PNG) {
        return Ok(PhotoKind::Png);
    }
    if PNG.starts_with(bytes) {
        return truncated("PNG");
    }
    if bytes.starts_with(b"RIFF") || b"RIFF".starts_with(bytes) {
        return riff(bytes);
    }
    if bytes.len() >= 8 && bytes[4..8] == *b"ftyp" {
        return iso_media(bytes);
    }
    Err(refused(bytes))
}

fn riff(bytes: &[u8]) -> Result<PhotoKind, PhotoError> {
    if bytes.len() < 16 {
        let webp_so_far = bytes.len() <= 8 || b"WEBP".starts_with(&bytes[8..bytes.len().min(12)]);
        return if webp_so_far {
            Err(PhotoError::Truncated(bytes.len(), "WebP"))
        } else {
            Err(PhotoError::Unknown)
        };
    }
    if bytes[8..12] != *b"WEBP" {
        return Err(PhotoError::Refused(
            "a RIFF file (audio or video), not WebP",
        ));
    }
    if WEBP_CHUNKS.iter().any(|c| bytes[12..16] == **c) {
        Ok(PhotoKind::Webp)
    } else {
        Err(PhotoError::Unknown)
    }
}

/// An ISO base media file (HEIF, AVIF, MP4, QuickTime...): the `ftyp` box's major brand
/// says which. The whole box must be there, as a reader needs it before anything else.
fn iso_media(bytes: &[u8]) -> Result<PhotoKind, PhotoError> {
    if bytes.len() < 12 {
        return Err(PhotoError::Truncated(bytes.len(), "HEIC/HEIF"));
    }
    let kind = match &bytes[8..12] {
        b"heic" | b"heix" | b"heim" | b"heis" => PhotoKind::Heic,
        b"hevc" | b"hevx" | b"hevm" | b"hevs" => PhotoKind::HeicSequence,
        b"mif1" => PhotoKind::Heif,
        b"msf1" => PhotoKind::HeifSequence,
        b"avif" | b"avis" => return Err(PhotoError::Refused("an AVIF image")),
        _ => return Err(PhotoError::Refused("a video or other ISO media file")),
    };
    let size = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    // Size, type, major brand, minor version, then whole four-byte compatible brands.
    if !(16..=MAX_FTYP).contains(&size) || size % 4 != 0 {
        return Err(PhotoError::Unknown);
    }
    if bytes.len() < size {
        return Err(PhotoError::Truncated(bytes.len(), "HEIC/HEIF"));
    }
    Ok(kind)
}

/// What unaccepted bytes look like, for the refusal's message.
fn refused(bytes: &[u8]) -> PhotoError {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = &text[text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len())..];
    let what = if text.starts_with(b"<") {
        "markup (SVG, HTML or XML)"
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        "a GIF image"
    } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        "a TIFF image"
    } else if bytes.starts_with(b"%PDF-") {
        "a PDF document"
    } else if bytes.starts_with(b"BM") && bytes.len() >= 14 {
        "a BMP image"
    } else {
        return PhotoError::Unknown;
    };
    PhotoError::Refused(what)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    /// A `ftyp` box with a major brand and compatible brands, then some bytes of the next box.
    fn ftyp(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
        let size = 16 + 4 * compatible.len();
        let mut b = (size as u32).to_be_bytes().to_vec();
        b.extend_from_slice(b"ftyp");
        b.extend_from_slice(major);
        b.extend_from_slice(&[0, 0, 0, 0]);
        for c in compatible {
            b.extend_from_slice(*c);
        }
        b.extend_from_slice(b"\0\0\0\x24meta");
        b
    }

    const JFIF: &[u8] = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01";
    const EXIF: &[u8] = b"\xFF\xD8\xFF\xE1\x12\x34Exif\x00\x00";
    const PNG_1X1: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
    const WEBP_LOSSY: &[u8] = b"RIFF\x24\0\0\0WEBPVP8 \x18\0\0\0";
    const WEBP_LOSSLESS: &[u8] = b"RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0";
    const WEBP_EXTENDED: &[u8] = b"RIFF\x30\0\0\0WEBPVP8X\x0a\0\0\0";

    #[rstest]
    #[case::jfif(JFIF, PhotoKind::Jpeg)]
    #[case::exif(EXIF, PhotoKind::Jpeg)]
    #[case::jpeg_quantization_table_first(b"\xFF\xD8\xFF\xDB\x00\x43", PhotoKind::Jpeg)]
    #[case::png(PNG_1X1, PhotoKind::Png)]
    #[case::png_with_a_script_appended(
        b"\x89PNG\r\n\x1a\n\0\0\0\0IEND<script>alert(1)</script>",
        PhotoKind::Png
    )]
    #[case::jpeg_html_polyglot(
        b"\xFF\xD8\xFF\xFE\x00\x20<html><script>x()</script>",
        PhotoKind::Jpeg
    )]
    #[case::webp_lossy(WEBP_LOSSY, PhotoKind::Webp)]
    #[case::webp_lossless(WEBP_LOSSLESS, PhotoKind::Webp)]
    #[case::webp_extended(WEBP_EXTENDED, PhotoKind::Webp)]
    fn signatures_name_their_kind(#[case] bytes: &[u8], #[case] kind: PhotoKind) {
        assert_eq!(sniff(bytes), Ok(kind));
    }

    #[rstest]
    #[case::iphone(*b"heic", vec![b"mif1", b"heic"], PhotoKind::Heic)]
    #[case::heix(*b"heix", vec![b"mif1", b"heix"], PhotoKind::Heic)]
    #[case::heim(*b"heim", vec![], PhotoKind::Heic)]
    #[case::heis(*b"heis", vec![], PhotoKind::Heic)]
    #[case::hevc(*b"hevc", vec![b"msf1", b"hevc"], PhotoKind::HeicSequence)]
    #[case::hevx(*b"hevx", vec![], PhotoKind::HeicSequence)]
    #[case::hevm(*b"hevm", vec![], PhotoKind::HeicSequence)]
    #[case::hevs(*b"hevs", vec![], PhotoKind::HeicSequence)]
    #[case::samsung_mif1(*b"mif1", vec![b"mif1", b"heic", b"miaf"], PhotoKind::Heif)]
    #[case::msf1(*b"msf1", vec![b"msf1"], PhotoKind::HeifSequence)]
    fn heif_brands_name_their_kind(
        #[case] major: [u8; 4],
        #[case] compatible: Vec<&[u8; 4]>,
        #[case] kind: PhotoKind,
    ) {
        assert_eq!(sniff(&ftyp(&major, &compatible)), Ok(kind));
    }

    #[rstest]
    #[case::svg(
        b"<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>",
        "markup (SVG, HTML or XML)"
    )]
    #[case::svg_after_a_bom_and_blank_lines(
        b"\xEF\xBB\xBF\n\n  <?xml version=\"1.0\"?><svg/>",
        "markup (SVG, HTML or XML)"
    )]
    #[case::html(
        b"<!doctype html><script>alert(1)</script>",
        "markup (SVG, HTML or XML)"
    )]
    #[case::gif(b"GIF89a\x01\0\x01\0\x80\0\0", "a GIF image")]
    #[case::gif_js_polyglot(b"GIF89a/*\x01\0\x01\0\x80\0\0*/=1;alert(1)//", "a GIF image")]
    #[case::gif87(b"GIF87a\x01\0\x01\0", "a GIF image")]
    #[case::tiff_little_endian(b"II*\0\x08\0\0\0", "a TIFF image")]
    #[case::tiff_big_endian(b"MM\0*\0\0\0\x08", "a TIFF image")]
    #[case::pdf(b"%PDF-1.7\n%\xE2\xE3", "a PDF document")]
    #[case::bmp(b"BM\x46\0\0\0\0\0\0\0\x36\0\0\0\x28\0", "a BMP image")]
    #[case::wave(
        b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0",
        "a RIFF file (audio or video), not WebP"
    )]
    fn other_formats_are_refused_by_name(#[case] bytes: &[u8], #[case] what: &'static str) {
        assert_eq!(sniff(bytes), Err(PhotoError::Refused(what)));
    }

    #[rstest]
    #[case::avif(*b"avif", "an AVIF image")]
    #[case::avif_sequence(*b"avis", "an AVIF image")]
    #[case::mp4(*b"isom", "a video or other ISO media file")]
    #[case::quicktime(*b"qt  ", "a video or other ISO media file")]
    fn other_iso_media_is_refused_by_name(#[case] major: [u8; 4], #[case] what: &'static str) {
        assert_eq!(
            sniff(&ftyp(&major, &[b"mif1"])),
            Err(PhotoError::Refused(what))
        );
    }

    #[rstest]
    #[case::one_byte_of_jpeg(b"\xFF", "JPEG")]
    #[case::jpeg_start_of_image_alone(b"\xFF\xD8", "JPEG")]
    #[case::jpeg_without_its_marker(b"\xFF\xD8\xFF", "JPEG")]
    #[case::png_signature_cut(b"\x89PNG\r\n", "PNG")]
    #[case::riff_cut(b"RIF", "WebP")]
    #[case::webp_without_its_chunk(b"RIFF\x24\0\0\0WEBP", "WebP")]
    #[case::webp_form_cut(b"RIFF\x24\0\0\0WE", "WebP")]
    #[case::ftyp_without_a_brand(b"\0\0\0\x18ftyphe", "HEIC/HEIF")]
    fn cut_headers_are_refused_as_truncated(#[case] bytes: &[u8], #[case] what: &str) {
        match sniff(bytes) {
            Err(PhotoError::Truncated(n, name)) => {
                assert_eq!((n, name), (bytes.len(), what));
            }
            other => panic!("{bytes:?}: {other:?}"),
        }
    }

    #[test]
    fn a_heif_whose_ftyp_box_is_cut_is_truncated() {
        let whole = ftyp(b"heic", &[b"mif1", b"heic"]);
        assert_eq!(
            sniff(&whole[..20]),
            Err(PhotoError::Truncated(20, "HEIC/HEIF"))
        );
    }

    #[rstest]
    #[case::ftyp_size_too_small(b"\0\0\0\x08ftypheic\0\0\0\0".to_vec())]
    #[case::ftyp_size_not_whole_brands(b"\0\0\0\x11ftypheic\0\0\0\0\0".to_vec())]
    #[case::ftyp_size_absurd(b"\x7F\0\0\0ftypheic\0\0\0\0".to_vec())]
    #[case::jpeg_start_then_no_marker(b"\xFF\xD8\x00\x00".to_vec())]
    #[case::jpeg_start_then_a_reserved_marker(b"\xFF\xD8\xFF\x01".to_vec())]
    #[case::webp_with_an_unknown_chunk(b"RIFF\x24\0\0\0WEBPABCD".to_vec())]
    #[case::plain_text(b"just some words".to_vec())]
    #[case::zeros(vec![0; 64])]
    fn unknown_bytes_are_refused(#[case] bytes: Vec<u8>) {
        assert_eq!(sniff(&bytes), Err(PhotoError::Unknown));
    }

    /// What the fuzz target (`fuzz/fuzz_targets/photo_kind.rs`) asserts, over every cut
    /// of real headers: a cut is refused or taken as the whole, never as another kind, and
    /// nothing after a signature changes the verdict.
    #[test]
    fn no_cut_of_a_header_is_taken_as_another_kind_and_nothing_appended_matters() {
        let heic = ftyp(b"heic", &[b"mif1", b"heic"]);
        for (whole, kind) in [
            (JFIF, PhotoKind::Jpeg),
            (PNG_1X1, PhotoKind::Png),
            (WEBP_EXTENDED, PhotoKind::Webp),
            (&heic[..], PhotoKind::Heic),
        ] {
            for n in 0..=whole.len() {
                let cut = &whole[..n];
                match sniff(cut) {
                    Ok(k) => assert_eq!(k, kind, "{cut:?}"),
                    Err(PhotoError::Truncated(len, _)) => assert_eq!(len, n),
                    Err(e) => assert!(!e.to_string().is_empty()),
                }
                let mut more = cut.to_vec();
                more.extend_from_slice(b"<script>alert(1)</script>");
                if let Ok(k) = sniff(cut) {
                    assert_eq!(sniff(&more), Ok(k), "{cut:?}");
                }
            }
        }
    }

    #[test]
    fn nothing_is_refused_as_empty() {
        assert_eq!(sniff(b""), Err(PhotoError::Empty));
    }

    #[test]
    fn every_kind_reads_back_from_its_media_type_and_extension() {
        for k in PhotoKind::ALL {
            assert_eq!(PhotoKind::from_media_type(k.media_type()), Some(k));
            assert_eq!(PhotoKind::from_extension(k.extension()), Some(k));
        }
        assert_eq!(
            PhotoKind::from_media_type("Image/JPG; q=1"),
            Some(PhotoKind::Jpeg)
        );
        assert_eq!(PhotoKind::from_media_type("image/svg+xml"), None);
        assert_eq!(PhotoKind::from_media_type("image/png, text/html"), None);
        assert_eq!(PhotoKind::from_extension("gif"), None);
    }

    #[test]
    fn refusals_say_what_is_taken() {
        for e in [PhotoError::Refused("a GIF image"), PhotoError::Unknown] {
            let m = e.to_string();
            assert!(m.contains("JPEG, PNG, WebP or HEIC/HEIF"), "{m}");
        }
    }
}
