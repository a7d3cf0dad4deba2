//! Bounds on what a zip may unpack to, read from its central directory before GDAL opens
//! it: a few megabytes of deflated zeros can claim terabytes, and GDAL would inflate them
//! (into memory or a temporary file) while reading. Only the central directory is read
//! here (the end record, its ZIP64 form when present, and one header per member), never
//! a member's data.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most the members of a zip may hold together, uncompressed, unless
/// `MS4_MAX_ZIP_BYTES` says otherwise: more than any town's layer, zipped, needs.
pub const DEFAULT_MAX_ZIP_BYTES: u64 = 4 << 30;
/// The most members a zip may hold, unless `MS4_MAX_ZIP_MEMBERS` says otherwise: a
/// zipped shapefile has a handful, a zipped File Geodatabase a few hundred.
pub const DEFAULT_MAX_ZIP_MEMBERS: u64 = 10_000;

/// The limits in force: the defaults, or the environment's (for a server with other
/// needs, and for tests).
pub fn limits() -> (u64, u64) {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(d)
    };
    (
        env("MS4_MAX_ZIP_BYTES", DEFAULT_MAX_ZIP_BYTES),
        env("MS4_MAX_ZIP_MEMBERS", DEFAULT_MAX_ZIP_MEMBERS),
    )
}

/// Why a zip is refused.
#[derive(Debug, PartialEq)]
pub enum ZipRefusal {
    /// Over a limit (the message, which follows "the zip", names it).
    TooLarge(String),
    /// Not a zip ms4 can read the central directory of.
    Unreadable(String),
}

fn u16_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?) as u64)
}
fn u32_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?) as u64)
}
fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

/// Checks a zip's member count and uncompressed total against the limits.
pub fn check(path: &Path, max_bytes: u64, max_members: u64) -> Result<(), ZipRefusal> {
    let bad = |why: &str| ZipRefusal::Unreadable(format!("not a readable zip ({why})"));
    let mut f = std::fs::File::open(path).map_err(|e| bad(&e.to_string()))?;
    let len = f.metadata().map_err(|e| bad(&e.to_string()))?.len();
    // The end record is 22 bytes plus a comment of up to 65,535, with a 20-byte ZIP64
    // locator before it.
    let tail_len = len.min(22 + 65_535 + 20);
    let mut tail = vec![0u8; tail_len as usize];
    f.seek(SeekFrom::Start(len - tail_len))
        .and_then(|_| f.read_exact(&mut tail))
        .map_err(|e| bad(&e.to_string()))?;
    let eocd = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..i + 4] == *b"PK\x05\x06")
        .ok_or_else(|| bad("no end of central directory"))?;
    let mut members = u16_at(&tail, eocd + 10).ok_or_else(|| bad("short end record"))?;
    let mut cd_size = u32_at(&tail, eocd + 12).ok_or_else(|| bad("short end record"))?;
    let mut cd_offset = u32_at(&tail, eocd + 16).ok_or_else(|| bad("short end record"))?;
    if members == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF {
        // ZIP64: the locator just before the end record gives the ZIP64 end record.
        let loc = eocd
            .checked_sub(20)
            .filter(|&l| tail[l..l + 4] == *b"PK\x06\x07")
            .ok_or_else(|| bad("ZIP64 locator missing"))?;
        let at = u64_at(&tail, loc + 8).ok_or_else(|| bad("short ZIP64 locator"))?;
        let mut rec = [0u8; 56];
        f.seek(SeekFrom::Start(at))
            .and_then(|_| f.read_exact(&mut rec))
            .map_err(|_| bad("ZIP64 end record unreadable"))?;
        if rec[..4] != *b"PK\x06\x06" {
            return Err(bad("ZIP64 end record missing"));
        }
        members = u64_at(&rec, 32).unwrap_or(u64::MAX);
        cd_size = u64_at(&rec, 40).unwrap_or(u64::MAX);
        cd_offset = u64_at(&rec, 48).unwrap_or(u64::MAX);
    }
    if members > max_members {
        return Err(ZipRefusal::TooLarge(format!(
            "holds {members} files, more than the {max_members} a zip may hold here"
        )));
    }
    if cd_offset.checked_add(cd_size).is_none_or(|end| end > len) {
        return Err(bad("its central directory lies outside the file"));
    }
    let mut cd = vec![0u8; cd_size as usize];
    f.seek(SeekFrom::Start(cd_offset))
        .and_then(|_| f.read_exact(&mut cd))
        .map_err(|e| bad(&e.to_string()))?;
    let (mut i, mut total, mut seen) = (0usize, 0u64, 0u64);
    while i + 46 <= cd.len() && cd[i..i + 4] == *b"PK\x01\x02" {
        let short = || bad("a central directory entry is cut short");
        let mut size = u32_at(&cd, i + 24).ok_or_else(short)?;
        let name_len = u16_at(&cd, i + 28).ok_or_else(short)? as usize;
        let extra_len = u16_at(&cd, i + 30).ok_or_else(short)? as usize;
        let comment_len = u16_at(&cd, i + 32).ok_or_else(short)? as usize;
        if size == 0xFFFF_FFFF {
            // The real size is the first field of the ZIP64 extra block (id 1).
            let extra = cd
                .get(i + 46 + name_len..i + 46 + name_len + extra_len)
                .ok_or_else(short)?;
            let mut j = 0;
            let mut found = None;
            while j + 4 <= extra.len() {
                let id = u16_at(extra, j).ok_or_else(short)?;
                let n = u16_at(extra, j + 2).ok_or_else(short)? as usize;
                if id == 1 {
                    found = u64_at(extra, j + 4);
                    break;
                }
                j += 4 + n;
            }
            size = found.ok_or_else(|| bad("a ZIP64 size is missing"))?;
        }
        total = total.saturating_add(size);
        seen += 1;
        if total > max_bytes {
            return Err(ZipRefusal::TooLarge(format!(
                "unpacks to more than {max_bytes} bytes (its central directory declares {total} bytes in its first {seen} files), more than a zip may unpack to here"
            )));
        }
        i += 46 + name_len + extra_len + comment_len;
    }
    if seen != members {
        return Err(bad(&format!(
            "its central directory lists {seen} of the {members} files it declares"
        )));
    }
    Ok(())
}
