//! How many features a source says it holds, to hold a read against.
//!
//! GDAL reads a shapefile record by record and stops quietly where a file was cut short
//! (it prints `fread(273) failed on DBF file` and ends the layer), and believes whichever
//! of the `.shx` and `.dbf` headers it reads. An import that trusted the read would
//! import half a file, and `--replace` would delete the other half. So a shapefile's
//! three headers are checked against each other and against the file sizes before a
//! feature is read, and the features read are checked against the count afterwards.

use super::gdal_guard;

/// The record count a shapefile's `.shx` declares, after checking that its `.shp`,
/// `.shx` and `.dbf` are whole and agree. `files` is the dataset's file list; `layer`
/// the layer's name (a shapefile's base name). Errors are sentences for the analyst.
pub(super) fn shapefile_records(files: &[String], layer: &str) -> Result<Option<u64>, String> {
    let find = |ext: &str| {
        files
            .iter()
            .find(|f| {
                let p = std::path::Path::new(f);
                p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| e.eq_ignore_ascii_case(ext))
                    && p.file_stem()
                        .and_then(|s| s.to_str())
                        .is_some_and(|s| s.eq_ignore_ascii_case(layer))
            })
            .cloned()
    };
    let (Some(shp), Some(shx)) = (find("shp"), find("shx")) else {
        return Ok(None);
    };
    let (shp_size, shx_size) = (size(&shp)?, size(&shx)?);
    let shp_declared = header_length(&shp)?;
    if shp_declared != shp_size {
        return Err(format!(
            "the .shp is {} than its header says ({shp_size} bytes, the header says {shp_declared}): the file was cut short or appended to",
            if shp_size < shp_declared { "shorter" } else { "longer" }
        ));
    }
    let shx_declared = header_length(&shx)?;
    if shx_declared != shx_size || shx_size < 100 || (shx_size - 100) % 8 != 0 {
        return Err(format!(
            "the .shx (the shapefile's index) is damaged: {shx_size} bytes, its header says {shx_declared}"
        ));
    }
    let records = (shx_size - 100) / 8;
    let Some(dbf) = find("dbf") else {
        return Ok(Some(records));
    };
    let head = gdal_guard::vsi_head(&dbf, 12).unwrap_or_default();
    if head.len() < 12 {
        return Err("the .dbf (the attribute table) is too short to hold its header".into());
    }
    let n = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as u64;
    let header_len = u16::from_le_bytes([head[8], head[9]]) as u64;
    let record_len = u16::from_le_bytes([head[10], head[11]]) as u64;
    let dbf_size = size(&dbf)?;
    let needed = header_len + n * record_len;
    if dbf_size < needed {
        let whole = dbf_size.saturating_sub(header_len) / record_len.max(1);
        return Err(format!(
            "the .dbf (the attribute table) is cut short: its header declares {n} records of {record_len} bytes, but the file holds only {whole} whole records ({dbf_size} of {needed} bytes)"
        ));
    }
    if n != records {
        return Err(format!(
            "the .dbf declares {n} records and the .shx {records} shapes; they must agree (one of the files was cut, edited or comes from another copy)"
        ));
    }
    Ok(Some(records))
}

fn size(path: &str) -> Result<u64, String> {
    gdal_guard::vsi_size(path).ok_or_else(|| format!("{} cannot be read", file_name(path)))
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The file length a .shp or .shx header declares (bytes 24–27, big-endian 16-bit words).
fn header_length(path: &str) -> Result<u64, String> {
    let head = gdal_guard::vsi_head(path, 100).unwrap_or_default();
    if head.len() < 100 {
        return Err(format!(
            "{} is too short to hold a shapefile header",
            file_name(path)
        ));
    }
    Ok(u32::from_be_bytes([head[24], head[25], head[26], head[27]]) as u64 * 2)
}
