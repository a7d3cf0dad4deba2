//! `ms4 inspect photo add|list|get`: an inspection's photos from the command line, kept
//! with their SHA-256 in the same store table as `POST /api/inspections/{id}/photos`,
//! with the same checks (an inspection that exists, a JPEG, PNG, WebP or HEIC/HEIF image
//! by its bytes, not empty, at most the service's size limit). The stored type is the one
//! the bytes name; a file name or `--content-type` that says otherwise is refused rather
//! than believed or silently overruled, as it means the file is not what was meant.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use clap::Subcommand;

use super::report::ReportFormat;
use crate::domain::photo::PhotoKind;
use crate::domain::Layer;
use crate::idde::MAX_PHOTO_BYTES;
use crate::import::default_actor;
use crate::store::photos::NewPhoto;

/// Photo commands.
#[derive(Debug, Subcommand)]
pub enum PhotoAction {
    /// Store a photo of an inspection.
    Add {
        /// The inspection's id.
        inspection: String,
        /// The image file.
        file: PathBuf,
        /// The media type the file should be; refused when its bytes are another (the
        /// stored type is always the one the bytes name).
        #[arg(long)]
        content_type: Option<String>,
    },
    /// List an inspection's photos with their SHA-256.
    List {
        /// The inspection's id.
        inspection: String,
        /// How to print.
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
    },
    /// Write a photo's bytes, by its SHA-256, to a file (or to stdout with `-o -`).
    Get {
        /// The SHA-256, 64 hex digits.
        sha256: String,
        /// Where to write it.
        #[arg(short, long)]
        out: PathBuf,
    },
}

/// The photo a file holds, refused naming the file when its bytes are no accepted image
/// or are not the kind its extension or `content_type` says.
fn photo_of(
    inspection: &str,
    file: &std::path::Path,
    bytes: Vec<u8>,
    content_type: Option<&str>,
) -> anyhow::Result<NewPhoto> {
    let name = file.display();
    if let Some(ct) = content_type {
        if PhotoKind::from_media_type(ct).is_none() {
            bail!("--content-type: {ct:?} is not image/jpeg, image/png, image/webp, image/heic or image/heif");
        }
    }
    let photo = NewPhoto::new(inspection, bytes).map_err(|e| {
        anyhow!("{name}: {e}; a photo must be a JPEG, PNG, WebP or HEIC/HEIF image")
    })?;
    let kind = photo.kind();
    if let Some(said) = content_type.and_then(PhotoKind::from_media_type) {
        if said != kind {
            bail!(
                "{name}: the bytes are a {kind} image, not {}; give --content-type {} or none",
                said.media_type(),
                kind.media_type()
            );
        }
    }
    let named = file
        .extension()
        .and_then(|e| e.to_str())
        .and_then(PhotoKind::from_extension);
    if let Some(named) = named {
        // HEIC and HEIF files are named either way by the programs that write them.
        let heif = |k: PhotoKind| k.media_type().starts_with("image/hei");
        if named != kind && !(heif(named) && heif(kind)) {
            bail!(
                "{name}: the bytes are a {kind} image but the name says {named}; rename it .{}",
                kind.extension()
            );
        }
    }
    Ok(photo)
}

pub(super) async fn run(store_url: &str, a: PhotoAction) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    match a {
        PhotoAction::Add {
            inspection,
            file,
            content_type,
        } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            if bytes.is_empty() {
                bail!("{}: empty; give the image file", file.display());
            }
            if bytes.len() > MAX_PHOTO_BYTES {
                bail!("{}: over {MAX_PHOTO_BYTES} bytes", file.display());
            }
            let photo = photo_of(&inspection, &file, bytes, content_type.as_deref())?;
            let ids = store.features(Layer::Inspections).await?;
            if !ids.iter().any(|f| f.id == inspection) {
                bail!("inspection {inspection:?}: no such inspection");
            }
            let (rec, new) = store.add_photo(&photo, &default_actor()).await?;
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "photo_id": rec.photo_id, "sha256": rec.sha256, "size": rec.size,
                    "content_type": photo.content_type(), "stored": new,
                }))?
            );
        }
        PhotoAction::List { inspection, format } => {
            let photos = store.photos_of(&inspection).await?;
            let header = ["sha256", "content_type", "size", "taken_by", "stored_at"];
            let rows: Vec<Vec<String>> = photos
                .iter()
                .map(|p| {
                    vec![
                        p.sha256.clone(),
                        p.content_type.clone(),
                        p.size.to_string(),
                        p.taken_by.clone(),
                        p.stored_at.clone(),
                    ]
                })
                .collect();
            match format {
                ReportFormat::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"inspection_id": inspection, "photos": photos})
                    )?
                ),
                ReportFormat::Csv => print!("{}", super::output::csv(&header, &rows)),
                ReportFormat::Table => print!("{}", super::output::table(&header, &rows)),
            }
        }
        PhotoAction::Get { sha256, out } => {
            if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                bail!("sha256: {sha256:?} is not 64 hex digits");
            }
            let (_, bytes) = store
                .photo(&sha256.to_ascii_lowercase())
                .await?
                .ok_or_else(|| anyhow!("photo {sha256}: no such photo"))?;
            if out.as_os_str() == "-" {
                use std::io::Write;
                std::io::stdout().write_all(&bytes)?;
            } else {
                std::fs::write(&out, &bytes)
                    .with_context(|| format!("writing {}", out.display()))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::photo_of;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR";
    const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\0\x10JFIF\0";

    fn refusal(file: &str, bytes: &[u8], ct: Option<&str>) -> String {
        photo_of("I-1", Path::new(file), bytes.to_vec(), ct)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn the_bytes_decide_the_type_when_nothing_else_is_said() {
        let p = photo_of("I-1", Path::new("IMG_0001"), PNG.to_vec(), None).unwrap();
        assert_eq!(p.content_type(), "image/png");
        let p = photo_of(
            "I-1",
            Path::new("a.JPEG"),
            JPEG.to_vec(),
            Some("image/jpeg"),
        )
        .unwrap();
        assert_eq!(p.content_type(), "image/jpeg");
    }

    #[test]
    fn a_file_that_is_no_image_is_refused_naming_it() {
        let e = refusal("drawing.png", b"<svg onload=alert(1)/>", None);
        assert!(e.starts_with("drawing.png: "), "{e}");
        assert!(e.contains("markup"), "{e}");
    }

    #[test]
    fn a_type_or_name_the_bytes_contradict_is_refused_naming_the_file() {
        let e = refusal("shot.png", PNG, Some("image/jpeg"));
        assert!(e.starts_with("shot.png: the bytes are a PNG image"), "{e}");
        let e = refusal("shot.jpg", PNG, None);
        assert!(e.contains("rename it .png"), "{e}");
        let e = refusal("shot.png", PNG, Some("image/svg+xml"));
        assert!(e.starts_with("--content-type:"), "{e}");
    }
}
