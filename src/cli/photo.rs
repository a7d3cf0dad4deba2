//! `ms4 inspect photo add|list|get`: an inspection's photos from the command line, kept
//! with their SHA-256 in the same store table as `POST /api/inspections/{id}/photos`,
//! with the same checks (an inspection that exists, an image type, not empty, at most
//! the service's size limit).

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use clap::Subcommand;

use super::report::ReportFormat;
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
        /// Its media type (default: from the file's extension).
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

fn content_type_of(path: &std::path::Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "tif" | "tiff" => "image/tiff",
        _ => return None,
    })
}

pub(super) async fn run(store_url: &str, a: PhotoAction) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    match a {
        PhotoAction::Add {
            inspection,
            file,
            content_type,
        } => {
            let ct = match content_type {
                Some(c) => c.trim().to_ascii_lowercase(),
                None => content_type_of(&file)
                    .ok_or_else(|| {
                        anyhow!(
                            "{}: the extension names no image type; give --content-type",
                            file.display()
                        )
                    })?
                    .to_string(),
            };
            if !ct.starts_with("image/") {
                bail!("--content-type: {ct:?} is not an image type (image/jpeg, image/png, ...)");
            }
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            if bytes.is_empty() {
                bail!("{}: empty; give the image file", file.display());
            }
            if bytes.len() > MAX_PHOTO_BYTES {
                bail!("{}: over {MAX_PHOTO_BYTES} bytes", file.display());
            }
            let ids = store.features(Layer::Inspections).await?;
            if !ids.iter().any(|f| f.id == inspection) {
                bail!("inspection {inspection:?}: no such inspection");
            }
            let photo = NewPhoto {
                inspection_id: inspection,
                content_type: ct,
                bytes,
            };
            let (rec, new) = store.add_photo(&photo, &default_actor()).await?;
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "photo_id": rec.photo_id, "sha256": rec.sha256, "size": rec.size,
                    "content_type": rec.content_type, "stored": new,
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
