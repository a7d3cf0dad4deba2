//! What GDAL may do while it reads a file someone else made.
//!
//! GDAL opens hundreds of formats, and some of them read other data: a VRT names any
//! dataset GDAL can open (the registry itself, with SQL that selects its tokens), and a
//! `/vsicurl/` path makes the process fetch a URL (server-side request forgery). An import
//! therefore opens files only with [`ALLOWED_DRIVERS`], only from local regular files, and
//! with GDAL's network access turned off in the process ([`lock_down`]). Errors GDAL
//! reports while it reads are caught per thread ([`ErrorCapture`]) so a short read fails
//! the import instead of being printed to stderr and ignored.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::{Mutex, Once};

/// The GDAL drivers an import opens files with, unless the user asks otherwise. Each
/// reads only the file it is given (and a shapefile's or geodatabase's own sidecars).
/// GDAL picks among them by the file's content. Never `OGR_VRT`, `SQLite` (whose
/// virtual tables open other datasets) or any network client.
pub const ALLOWED_DRIVERS: &[&str] = &[
    "GPKG",
    "GeoJSON",
    "ESRI Shapefile",
    "CSV",
    "OpenFileGDB",
    "KML",
    // GDAL's default KML reader (the only one that reads ExtendedData attributes); it
    // fetches external styles only with LIBKML_EXTERNAL_STYLE, which lock_down keeps off,
    // and follows a doc.kml's links only in a folder or .kmz, which lock_down turns off.
    "LIBKML",
    "FlatGeobuf",
];

/// The formats of [`ALLOWED_DRIVERS`], in words, for error messages.
pub const ALLOWED_FORMATS: &str =
    "GeoPackage, GeoJSON, Shapefile (or a zip of one), CSV, File Geodatabase, KML or FlatGeobuf";

static LOCKED: Once = Once::new();

/// Turns GDAL's network access off for the whole process (once; later calls do
/// nothing). The driver allow-list already keeps uploads away from network drivers and
/// VRTs; this is the second wall, for anything that slips past it.
pub fn lock_down() {
    LOCKED.call_once(|| {
        for (k, v) in [
            // /vsicurl/ and friends treat a file as absent unless its name ends in one of
            // these; nothing ends in this, so no request is ever made.
            ("CPL_VSIL_CURL_ALLOWED_EXTENSIONS", ".ms4-network-disabled"),
            ("GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR"),
            // Anything that still reaches libcurl gives up at once, without retries.
            ("GDAL_HTTP_TIMEOUT", "1"),
            ("GDAL_HTTP_CONNECTTIMEOUT", "1"),
            ("GDAL_HTTP_MAX_RETRY", "0"),
            ("GDAL_HTTP_NETRC", "NO"),
            ("CPL_VSIL_CURL_USE_HEAD", "NO"),
            // A GeoPackage may hold virtual tables that open other datasets.
            ("OGR_SQLITE_ALLOW_EXTERNAL_ACCESS", "NO"),
            // Nor may a GML/KML pull in other documents.
            ("GML_SKIP_RESOLVE_ELEMS", "ALL"),
            ("GML_DOWNLOAD_WFS_SCHEMA", "NO"),
            ("PROJ_NETWORK", "OFF"),
            ("LIBKML_EXTERNAL_STYLE", "NO"),
            ("LIBKML_USE_DOC.KML", "NO"),
            // A stopped server leaves a thread still inside GDAL behind (see `main`);
            // GDAL's own clean-up at exit would free what that thread is using.
            ("GDAL_DESTROY", "NO"),
        ] {
            let _ = gdal::config::set_config_option(k, v);
        }
        // SAFETY: a plain setter of PROJ's global network flag.
        unsafe { gdal_sys::OSRSetPROJEnableNetwork(0) };
    });
}

/// Whether a path names a GDAL virtual file system (`/vsicurl/`, `/vsizip/`, ...).
pub fn is_virtual_path(s: &str) -> bool {
    s.trim_start().to_ascii_lowercase().starts_with("/vsi")
}

/// The first bytes of a file, through GDAL's virtual file systems (so inside a zip too).
pub fn vsi_head(path: &str, n: usize) -> Option<Vec<u8>> {
    let c = CString::new(path).ok()?;
    let mode = CString::new("rb").expect("no NUL");
    // SAFETY: the handle is checked, read into a buffer of the length given, and closed.
    unsafe {
        let fp = gdal_sys::VSIFOpenL(c.as_ptr(), mode.as_ptr());
        if fp.is_null() {
            return None;
        }
        let mut buf = vec![0u8; n];
        let got = gdal_sys::VSIFReadL(buf.as_mut_ptr() as *mut c_void, 1, n, fp);
        gdal_sys::VSIFCloseL(fp);
        buf.truncate(got);
        Some(buf)
    }
}

/// A file's size, through GDAL's virtual file systems.
pub fn vsi_size(path: &str) -> Option<u64> {
    let c = CString::new(path).ok()?;
    let mode = CString::new("rb").expect("no NUL");
    // SAFETY: the handle is checked, seeked to its end, told and closed. (The stat buffer
    // is opaque in the bindings, so the size is found by seeking.)
    unsafe {
        let fp = gdal_sys::VSIFOpenL(c.as_ptr(), mode.as_ptr());
        if fp.is_null() {
            return None;
        }
        let ok = gdal_sys::VSIFSeekL(fp, 0, 2) == 0; // SEEK_END
        let size = gdal_sys::VSIFTellL(fp);
        gdal_sys::VSIFCloseL(fp);
        ok.then_some(size)
    }
}

/// Every file below a directory (or inside a zip), relative to it.
pub fn vsi_list(dir: &str) -> Vec<String> {
    let Ok(c) = CString::new(dir) else {
        return Vec::new();
    };
    // SAFETY: the returned string list is copied and then freed with CSLDestroy.
    unsafe {
        let list = gdal_sys::VSIReadDirRecursive(c.as_ptr());
        let out = csl_to_vec(list);
        gdal_sys::CSLDestroy(list);
        out
    }
}

/// The files a dataset is made of (a shapefile's .shp, .shx, .dbf, .prj...).
pub fn file_list(ds: &gdal::Dataset) -> Vec<String> {
    // SAFETY: as in vsi_list.
    unsafe {
        let list = gdal_sys::GDALGetFileList(ds.c_dataset());
        let out = csl_to_vec(list);
        gdal_sys::CSLDestroy(list);
        out
    }
}

unsafe fn csl_to_vec(list: *mut *mut c_char) -> Vec<String> {
    let mut out = Vec::new();
    if list.is_null() {
        return out;
    }
    let mut i = 0;
    loop {
        let p = *list.add(i);
        if p.is_null() {
            break;
        }
        out.push(CStr::from_ptr(p).to_string_lossy().into_owned());
        i += 1;
    }
    out
}

/// Whether bytes begin a GDAL VRT (an XML file that points GDAL at other data).
pub fn looks_like_vrt(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    text.contains("<ogrvrtdatasource") || text.contains("<vrtdataset")
}

/// The errors GDAL reports on this thread while the capture lives, instead of printing
/// them. GDAL keeps its error handlers per thread, so the capture must be dropped on the
/// thread that made it (it is neither `Send` nor `Sync`).
pub struct ErrorCapture {
    sink: Box<Sink>,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// What a capture has caught.
#[derive(Default)]
struct Sink {
    keep_warnings: bool,
    caught: Mutex<Caught>,
}

#[derive(Default)]
struct Caught {
    errors: Vec<String>,
    warnings: Vec<String>,
}

impl ErrorCapture {
    /// Starts capturing errors on this thread (warnings are dropped).
    pub fn start() -> Self {
        Self::with(false)
    }

    /// Starts capturing errors and warnings on this thread.
    pub fn start_with_warnings() -> Self {
        Self::with(true)
    }

    fn with(keep_warnings: bool) -> Self {
        let sink = Box::new(Sink {
            keep_warnings,
            ..Default::default()
        });
        // SAFETY: the user data points into the box, which lives until drop pops the
        // handler again.
        unsafe {
            gdal_sys::CPLPushErrorHandlerEx(
                Some(capture_handler),
                &*sink as *const Sink as *mut c_void,
            );
        };
        ErrorCapture {
            sink,
            _not_send: Default::default(),
        }
    }

    fn caught(&self) -> std::sync::MutexGuard<'_, Caught> {
        self.sink.caught.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The errors (not warnings) so far, taken out.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.caught().errors)
    }

    /// The warnings so far, taken out (always empty unless started with warnings).
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.caught().warnings)
    }
}

impl Drop for ErrorCapture {
    fn drop(&mut self) {
        // SAFETY: pops the handler this capture pushed on this thread.
        unsafe { gdal_sys::CPLPopErrorHandler() };
    }
}

unsafe extern "C" fn capture_handler(
    class: gdal_sys::CPLErr::Type,
    _no: gdal_sys::CPLErrorNum,
    msg: *const c_char,
) {
    let ud = gdal_sys::CPLGetErrorHandlerUserData() as *const Sink;
    if ud.is_null() || msg.is_null() || class < gdal_sys::CPLErr::CE_Warning {
        return; // debug output is no one's concern
    }
    let sink = &*ud;
    if class == gdal_sys::CPLErr::CE_Warning && !sink.keep_warnings {
        return;
    }
    let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
    if let Ok(mut c) = sink.caught.lock() {
        if class == gdal_sys::CPLErr::CE_Warning {
            c.warnings.push(text);
        } else {
            c.errors.push(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vrt_is_recognised_in_any_case_and_geojson_is_not() {
        assert!(looks_like_vrt(b"  <OGRVRTDataSource><OGRVRTLayer"));
        assert!(looks_like_vrt(b"<?xml version='1.0'?>\n<ogrvrtdatasource>"));
        assert!(!looks_like_vrt(br#"{"type":"FeatureCollection"}"#));
        assert!(is_virtual_path("/vsicurl/http://example/x.geojson"));
        assert!(is_virtual_path("/VSIZIP//tmp/a.zip"));
        assert!(!is_virtual_path("/tmp/vsicurl.geojson"));
    }

    #[test]
    fn errors_are_captured_on_this_thread_and_warnings_are_not() {
        let cap = ErrorCapture::start();
        let fmt = CString::new("%s").unwrap();
        let m1 = CString::new("fread(273) failed on DBF file.").unwrap();
        let m2 = CString::new("just a warning").unwrap();
        unsafe {
            gdal_sys::CPLError(gdal_sys::CPLErr::CE_Failure, 1, fmt.as_ptr(), m1.as_ptr());
            gdal_sys::CPLError(gdal_sys::CPLErr::CE_Warning, 1, fmt.as_ptr(), m2.as_ptr());
        }
        assert_eq!(
            cap.take(),
            vec!["fread(273) failed on DBF file.".to_string()]
        );
        assert!(cap.take().is_empty());
    }

    #[test]
    fn after_lock_down_a_vsicurl_path_makes_no_request() {
        use std::io::Read;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        lock_down();
        // Even with every driver allowed, nothing reaches the listener.
        let url = format!("/vsicurl/http://127.0.0.1:{port}/points.geojson");
        let opened = gdal::Dataset::open(&url);
        assert!(opened.is_err());
        assert!(vsi_head(&url, 16).is_none());
        std::thread::sleep(std::time::Duration::from_millis(200));
        match listener.accept() {
            Ok((mut s, _)) => {
                let mut b = [0u8; 64];
                let n = s.read(&mut b).unwrap_or(0);
                panic!("GDAL connected: {:?}", String::from_utf8_lossy(&b[..n]));
            }
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
        }
    }
}
