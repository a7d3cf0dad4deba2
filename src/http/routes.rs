//! Every route of the service, declared once: its method, path, handler, who may call it,
//! its body limit and middleware, and what the API definition says of it. [`super::app`]
//! mounts the router from this table and [`super::openapi::spec`] writes
//! `/api/openapi.json` from the same entries, so a route cannot be served without being
//! documented, nor documented without being served.

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::handler::Handler;
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use axum::Router;

use super::caller::{self, Need};
use super::openapi_types::{
    determine_request, feature, feature_collection, named, object as t, Typed,
};
use super::{
    answer_format, api, calendar, cases, footprint, inspections, ogc, openapi, page, photos, sites,
    style, tiles, tokens, upload, AppState, MAX_JSON_WRITE_BYTES,
};
use crate::answer::calendar::CalendarParams;
use crate::answer::determine::{PlaceWire, ScreenParams};
use crate::answer::illicit::IllicitParams;
use crate::answer::mapping::{MappingStatusParams, MonitoringLocationsParams, SewershedsParams};
use crate::answer::nearby::NearbyParams;
use crate::answer::schedule::InspectionsDueParams;
use crate::answer::smps::SmpsParams;
use crate::answer::trace::{NetworkCheckParams, TraceParams};
use crate::answer::watershed_facilities::WatershedFacilitiesParams;
use crate::auth::Role;
use crate::idde::case::{Action, Closing};
use crate::idde::open::OpenCase;
use crate::idde::respondent::RespondentRequest;
use crate::idde::MAX_PHOTO_BYTES;
use cases::{AsOf, ListParams, NoticeParams, ReportParams};
use inspections::NewInspection;
use ogc::{ItemParams, ItemsParams};

/// A schema written by the generator: a typed struct's schema, its nested definitions
/// kept for `components/schemas`.
pub type SchemaOf = fn(&mut Typed) -> serde_json::Value;

/// A route's query parameters.
#[derive(Clone, Copy)]
pub enum Query {
    /// None.
    None,
    /// One parameter per field of the struct the handler deserializes the query into
    /// (the OGC items' too, which `ogc.rs` reads by hand into its typed struct).
    Typed(SchemaOf),
}

/// A route's body: its media type and, for JSON, the schema of the type the handler
/// deserializes it into (none: a body the handler reads as any JSON, or a file).
#[derive(Clone, Copy)]
pub struct Body {
    /// The media type.
    pub media: &'static str,
    /// The body's schema.
    pub schema: Option<SchemaOf>,
}

/// One answer of a route: its description, media types and, where the answer has a
/// type of its own, that type's schema.
#[derive(Clone)]
pub struct Answer {
    /// The status code, as the document keys it (`200`, `201`).
    pub status: &'static str,
    /// What it is.
    pub description: &'static str,
    /// The media types it comes in, each with the schema of its body (any when none).
    pub media: Vec<(&'static str, Option<SchemaOf>)>,
}

/// What the API definition says of a route.
pub struct Op {
    /// What it does.
    pub summary: &'static str,
    /// Query parameters.
    pub query: Query,
    /// Whether it takes a body, and its media type.
    pub body: Option<Body>,
    /// Its answers when it succeeds, the first the usual one.
    pub answers: Vec<Answer>,
    /// Error statuses it answers besides the ones every route may (and those its access
    /// and body add): a close's 412, the session's 401.
    pub errors: Vec<&'static str>,
    /// It reads `If-Match` (the case's ETag).
    pub if_match: bool,
}

/// How a route is documented.
pub enum Doc {
    /// In the document under its own path, by this entry.
    Api(Op),
    /// In the document under this path by [`tiles::openapi_paths`], which names a map
    /// file by its name (`/tiles/{z}/{x}/{y}.mvt`) where the router has one `{file}`
    /// segment.
    Map(&'static str),
    /// Not an API route: the page's own files and the map style's sprite sheets.
    PageFile,
}

/// The body limit a route has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    /// The server's (`--body-limit`): uploads.
    Server,
    /// [`MAX_JSON_WRITE_BYTES`]: a write of records.
    JsonWrite,
    /// The photo limit, or the server's when smaller: a body over it is refused as it
    /// comes rather than buffered up to the server's limit first.
    Photo,
}

/// One route.
pub struct Route {
    /// `get`, `post` or `delete`.
    pub method: &'static str,
    /// The path (axum's `{param}` syntax, which is also OpenAPI's).
    pub path: &'static str,
    /// The handler, for this method only.
    pub handler: MethodRouter<AppState>,
    /// What a caller needs (none: open to anyone).
    pub access: Option<Need>,
    /// The body limit.
    pub limit: Limit,
    /// An `/api` answer that comes as JSON or GeoJSON ([`answer_format`]).
    pub answer_format: bool,
    /// What the document says of it.
    pub doc: Doc,
}

/// Anyone may call the route: it holds no registry data.
const OPEN: Option<Need> = None;
/// Any valid token (or none on a public-read server).
const READ: Option<Need> = Some(Need::Read);

/// A token of this role (or admin).
const fn role(r: Role) -> Option<Need> {
    Some(Need::Role(r))
}

const JSON: &str = "application/json";
const GEOJSON: &str = "application/geo+json";
const HTML: &str = "text/html";

impl Route {
    /// `method path` answered by `handler` (a method router for `method` alone), open to
    /// anyone, documented with `summary`, a JSON answer, no query and no body.
    fn new(
        method: &'static str,
        path: &'static str,
        handler: MethodRouter<AppState>,
        summary: &'static str,
    ) -> Self {
        Route {
            method,
            path,
            handler,
            access: OPEN,
            limit: Limit::Server,
            answer_format: false,
            doc: Doc::Api(Op {
                summary,
                query: Query::None,
                body: None,
                answers: vec![Answer {
                    status: "200",
                    description: "the answer",
                    media: vec![(JSON, None)],
                }],
                errors: Vec::new(),
                if_match: false,
            }),
        }
    }

    fn op(&mut self) -> &mut Op {
        match &mut self.doc {
            Doc::Api(op) => op,
            _ => unreachable!(
                "{} {} is not documented by its entry",
                self.method, self.path
            ),
        }
    }

    /// Who may call it.
    fn access(mut self, access: Option<Need>) -> Self {
        self.access = access;
        self
    }

    /// Its query, of type `T`.
    fn query(mut self, schema: SchemaOf) -> Self {
        self.op().query = Query::Typed(schema);
        self
    }

    /// A JSON body of a type (`Some`) or of any JSON (`None`).
    fn json(mut self, schema: Option<SchemaOf>) -> Self {
        self.op().body = Some(Body {
            media: JSON,
            schema,
        });
        self
    }

    /// A body that is not JSON (a file, a form).
    fn raw(mut self, media: &'static str) -> Self {
        self.op().body = Some(Body {
            media,
            schema: None,
        });
        self
    }

    /// The usual answer's media type.
    fn answers_in(mut self, media: &'static str) -> Self {
        self.op().answers[0].media = vec![(media, None)];
        self
    }

    /// The usual answer's schema.
    fn answer_schema(mut self, schema: SchemaOf) -> Self {
        self.op().answers[0].media[0].1 = Some(schema);
        self
    }

    /// The usual answer is a 201 (a record made).
    fn created(mut self) -> Self {
        self.op().answers[0].status = "201";
        self
    }

    /// An answer besides the usual one.
    fn also(mut self, status: &'static str, description: &'static str) -> Self {
        self.op().answers.push(Answer {
            status,
            description,
            media: vec![(JSON, None)],
        });
        self
    }

    /// An error status besides the common ones.
    fn error(mut self, status: &'static str) -> Self {
        self.op().errors.push(status);
        self
    }

    /// A JSON write of records: [`MAX_JSON_WRITE_BYTES`].
    fn json_write(mut self) -> Self {
        self.limit = Limit::JsonWrite;
        self
    }

    /// An `/api` answer in JSON, or GeoJSON (a FeatureCollection of the places it names)
    /// with `f=geojson` or `Accept: application/geo+json`.
    fn answer(mut self) -> Self {
        self.answer_format = true;
        self.op().answers[0]
            .media
            .push((GEOJSON, Some(feature_collection)));
        self
    }

    /// Documented by [`tiles::openapi_paths`] under `path`.
    fn map(mut self, path: &'static str) -> Self {
        self.doc = Doc::Map(path);
        self
    }

    /// Not an API route.
    fn page_file(mut self) -> Self {
        self.doc = Doc::PageFile;
        self
    }

    /// The handler with the entry's middleware: its body limit, the answer format, and
    /// the token check its access needs (on the route alone, so a method the path does
    /// not take is the router's 405, never a 401).
    fn mounted(self, state: &AppState) -> MethodRouter<AppState> {
        let mut handler = self.handler;
        if self.answer_format {
            handler = handler.layer(from_fn(answer_format::read));
        }
        let limit = match self.limit {
            Limit::Server => None,
            Limit::JsonWrite => Some(MAX_JSON_WRITE_BYTES),
            Limit::Photo => Some(state.config.body_limit.min(MAX_PHOTO_BYTES)),
        };
        if let Some(bytes) = limit {
            handler = handler.layer(DefaultBodyLimit::max(bytes));
        }
        match self.access {
            None => handler,
            Some(need) => handler.route_layer(from_fn_with_state((state.clone(), need), gate)),
        }
    }
}

/// The token check of a route that needs `need`: the caller, once admitted, rides on the
/// request for the handler ([`super::Caller`]).
async fn gate(
    State((state, need)): State<(AppState, Need)>,
    mut req: Request,
    next: Next,
) -> Response {
    match caller::admit(&state, req.headers(), need).await {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}

fn get<H: Handler<T, AppState>, T: 'static>(
    path: &'static str,
    handler: H,
    summary: &'static str,
) -> Route {
    Route::new("get", path, axum::routing::get(handler), summary)
}

fn post<H: Handler<T, AppState>, T: 'static>(
    path: &'static str,
    handler: H,
    summary: &'static str,
) -> Route {
    Route::new("post", path, axum::routing::post(handler), summary)
}

fn delete<H: Handler<T, AppState>, T: 'static>(
    path: &'static str,
    handler: H,
    summary: &'static str,
) -> Route {
    Route::new("delete", path, axum::routing::delete(handler), summary)
}

/// Every route of the service.
pub fn routes() -> Vec<Route> {
    use Role::{Admin, Analyst, Inspector, Officer};
    let [upload_to_layer, upload_any] = upload::router();
    vec![
        // Open: they hold no registry data.
        get("/", ogc::landing, "Landing page (OGC API – Features)"),
        get("/conformance", ogc::conformance, "Conformance classes"),
        get("/health", super::health, "Liveness (200 while serving), readiness (`ready`, `database`: reachable or unreachable), store kind, jurisdiction and CRS"),
        get("/api/openapi.json", openapi::document, "This document"),
        get("/api/session", page::session, "Who the token (or no token) is and what it may do: {signed_in, public_read, may_read, subject, role, may: {read, inspect, import, admin}}; a token that is not valid is a 401")
            .answer_schema(named::<page::Session>)
            .error("401"),
        // The map's files are documented by `tiles::openapi_paths`, under their names
        // (`.map`); the page's own files are not API routes (`.page_file`).
        get("/tileMatrixSets", tiles::matrix_sets, "").map("/tileMatrixSets"),
        get("/tileMatrixSets/WebMercatorQuad", tiles::web_mercator_quad, "").map("/tileMatrixSets/WebMercatorQuad"),
        get("/styles/ms4.json", style::style, "").map("/styles/ms4.json"),
        get("/styles/{file}", style::sprite, "").page_file(),
        get("/page/{*file}", page::asset, "").page_file(),
        get("/sw.js", page::service_worker, "").page_file(),
        get("/manifest.webmanifest", page::manifest, "").page_file(),
        // Reads: OGC API – Features and Tiles.
        get("/collections", ogc::collections, "The registry's layers with extent and CRS list").access(READ),
        get("/collections/{layer}", ogc::collection, "One layer").access(READ),
        get("/collections/{layer}/items", ogc::items, "A layer's features (GeoJSON), by page")
            .access(READ).query(t::<ItemsParams>).answers_in(GEOJSON).answer_schema(feature_collection),
        get("/collections/{layer}/queryables", ogc::queryables, "The properties a filter on the layer's items takes (a JSON Schema): its fields and the attributes kept from the source")
            .access(READ),
        get("/collections/{layer}/items/{id}", ogc::item, "One feature")
            .access(READ).query(t::<ItemParams>).answers_in(GEOJSON).answer_schema(feature),
        get("/tiles.json", tiles::tilejson_all, "").access(READ).map("/tiles.json"),
        get("/tiles/{file}", tiles::tilejson_one, "").access(READ).map("/tiles/{layer}.json"),
        get("/tiles/{z}/{x}/{file}", tiles::tile_all, "").access(READ).map("/tiles/{z}/{x}/{y}.mvt"),
        get("/tiles/{layer}/{z}/{x}/{file}", tiles::tile_one, "").access(READ).map("/tiles/{layer}/{z}/{x}/{y}.mvt"),
        get("/collections/{layer}/tiles", tiles::ogc_tilesets, "").access(READ).map("/collections/{layer}/tiles"),
        get("/collections/{layer}/tiles/WebMercatorQuad", tiles::ogc_tileset, "").access(READ).map("/collections/{layer}/tiles/WebMercatorQuad"),
        get("/collections/{layer}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}", tiles::ogc_tile, "")
            .access(READ).map("/collections/{layer}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}"),
        // Reads: the registry's answers, in JSON or GeoJSON.
        get("/api/nearby", api::nearby, "Facilities near a point, nearest first, as `ms4 nearby`")
            .access(READ).answer().query(t::<NearbyParams>),
        get("/api/watersheds/{id}/facilities", api::watershed_facilities, "Facilities in a watershed ranked for inspection, as `ms4 watershed-facilities`")
            .access(READ).answer().query(t::<WatershedFacilitiesParams>),
        post("/api/watersheds/{id}/facilities", api::watershed_facilities_in_polygon, "The same inside a GeoJSON polygon sent as the body")
            .access(READ).answer().query(t::<WatershedFacilitiesParams>).json(None),
        get("/api/trace/{asset_id}", api::trace, "Trace the drainage network, as `ms4 trace`")
            .access(READ).answer().query(t::<TraceParams>),
        get("/api/illicit", api::illicit, "Every connection judged, with citations, as `ms4 illicit`")
            .access(READ).answer().query(t::<IllicitParams>),
        get("/api/monitoring-locations", api::monitoring_locations, "Monitoring locations (every outfall, and every interconnection with another public body's system found from the owners along the network or entered by hand), each with its receiving waters (class, 303(d) listing, TMDLs) and a priority with reasons under the profile's rule (its reading, with its source), as `ms4 monitoring-locations`")
            .access(READ).answer().query(t::<MonitoringLocationsParams>),
        get("/api/sewersheds", api::sewersheds, "A preliminary storm sewershed per monitoring location from its upstream trace (the method stated), clipped to the town, with its area and quality, as `ms4 sewersheds`")
            .access(READ).answer().query(t::<SewershedsParams>),
        get("/api/mapping-status", api::mapping_status, "How much is mapped, for the town and by watershed (outfalls with a receiving water, pipes with a recorded flow direction, structures joined to the network, area inside a sewershed), each figure with its ids, as `ms4 mapping-status`")
            .access(READ).answer().query(t::<MappingStatusParams>),
        get("/api/inspections/due", api::inspections_due, "Every asset's next inspection by the profile's [schedules] (outfalls and interconnections by priority, SMPs by practice type with a professional engineer's inspection of structural ones where the law asks it, catch basins, sites; the default's reading, every 365 days, where it has none), never inspected, overdue and due within the window, as `ms4 inspections due`")
            .access(READ).answer().query(t::<InspectionsDueParams>),
        get("/api/calendar", api::calendar, "The permit calendar on a day: each programme item of the profile's [calendar] with its citation and due rule, done (with the record that shows it), due, overdue, or past with no record the registry holds, as `ms4 calendar`")
            .access(READ).answer().query(t::<CalendarParams>),
        get("/api/calendar/records", calendar::records, "The programme submissions recorded (the annual report, interim certifications, mapping phases), by the day the occurrence each answers fell due: {count, records: [{submission_id, item_id, for_due_on, submitted_on, submitted_by, reference?, note?}]}; the calendar shows an occurrence done by its submission, as `ms4 calendar records`")
            .access(READ).query(t::<calendar::RecordsParams>).answer_schema(t::<crate::programme::commands::RecordList>),
        get("/api/smps-without-easement", api::smps_without_easement, "Structural SMPs without a recorded maintenance easement")
            .access(READ).answer().query(t::<SmpsParams>),
        get("/api/network-check", api::network_check, "Dangling ends, parts, cycles, reversed pipes, orphans")
            .access(READ).answer().query(t::<NetworkCheckParams>),
        get("/api/receiving-waters", api::receiving_waters, "Receiving waters of a parcel, by watershed and by the network")
            .access(READ).answer().query(t::<PlaceWire>),
        post("/api/receiving-waters", api::receiving_waters_of_footprint, "Receiving waters of a footprint: {\"footprint\": GeoJSON} or {\"parcel\": id}")
            .access(READ).answer().json(Some(t::<PlaceWire>)),
        post("/api/determinations", api::determinations, "Land development activity, exemptions, Conditions One/Two/Three and requirements, as `ms4 determine`: the place (parcel or footprint) and the project's facts (the schema DetermineRequest)")
            .access(READ).answer().json(Some(determine_request)),
        get("/api/screen", api::screen, "Condition One for a project on every parcel, as `ms4 screen`")
            .access(READ).answer().query(t::<ScreenParams>),
        // Reads: inspections, cases, photos, a footprint from a file.
        get("/api/assets/{id}/inspections", inspections::of_asset, "An asset's inspections, newest first").access(READ),
        get("/api/watersheds/{id}/inspections", inspections::of_watershed, "Inspections of the facilities in a watershed, newest first").access(READ),
        get("/api/cases", cases::list, "Illicit discharge cases with their candidates and action logs")
            .access(READ).query(t::<ListParams>),
        get("/api/cases/{id}", cases::one, "A case with its deadlines and fines computed as of a time; its version is the ETag")
            .access(READ).query(t::<AsOf>),
        get("/api/cases/{id}/notice", cases::notice, "The case's notice as printable HTML: the notice of violation, or the written notice or citation where the town's law has them; open facts counted in x-open-facts")
            .access(READ).query(t::<NoticeParams>).answers_in(HTML),
        post("/api/notices/land-development", cases::ld_notice, "The land development notice of violation (NC ch. 267 Part 1 C(1), Carmel § 156-88A) as printable HTML: {case_id?, parcel_id?, owner?, owner_address?, site?, violation?, remedial_measures?: [{measure, complete_by?}], served_on?, earlier_offences?, offence_on?}; the print view is the paper form")
            .access(READ).json(None).answers_in(HTML),
        get("/api/deadlines", cases::deadlines, "What is due and overdue, by case, and the fines accrued (computed from the profile)")
            .access(READ).query(t::<AsOf>),
        get("/api/report", cases::report, "The annual report: each count with its period, denominator and record ids")
            .access(READ).query(t::<ReportParams>).report(),
        get("/api/sites", sites::list, "Construction sites with their logs").access(READ).query(t::<sites::SiteListParams>),
        get("/api/sites/due", sites::due, "What is due and overdue at the construction sites, by site: inspections every seven days and after storms, the trained contractor daily, 48-hour milestone notices, stop-work orders in effect, the maintenance agreement and easement by the final plan approval and the as-built plans at close-out (computed from the profile, cited); open facts where the record lacks rainfall, a determination or the evidence of final stabilization")
            .access(READ).query(t::<sites::SiteAsOf>),
        get("/api/sites/{id}", sites::one, "A construction site with its schedule as of a time, its priority's reason and the guarantees held; its version is the ETag")
            .access(READ).query(t::<sites::SiteAsOf>),
        get("/api/rainfall", sites::rainfall, "Daily rainfall recorded, by gauge then day: {count, entries: [{gauge_id, day, inches}]}; the storm-triggered inspections of /api/sites/due are counted from it")
            .access(READ).query(t::<sites::RainfallParams>),
        get("/api/inspections/{id}/photos", photos::photos_of, "An inspection's photos with their SHA-256").access(READ),
        get("/api/photos/{sha256}", photos::photo, "A photo's bytes, by its SHA-256, under the type its bytes name, with nosniff and a sandboxing Content-Security-Policy")
            .access(READ).answers_in("image/*"),
        Route::new("post", "/api/footprint", footprint::router(), "A footprint from a file (multipart: file, s_srs): a zipped shapefile, GeoPackage, GeoJSON, KML or FlatGeobuf, answered as one GeoJSON feature in CRS84")
            .access(READ).raw("multipart/form-data").answer_schema(feature),
        // Writes, each behind the role it needs.
        post("/api/inspections", inspections::create, "Record an inspection: {asset_id, inspected_on, kind (dry_weather_screening | smp_maintenance | catch_basin_cleaning), result, inspector?, notes?, screening?: {flow, odour, colour, turbidity, floatables, deposits, field_tests: {ph, ammonia_mg_l, ...}}}")
            .access(role(Inspector)).json_write().json(Some(t::<NewInspection>))
            .created().also("200", "the same inspection again, updated").if_match(),
        post("/api/inspections/{id}/photos", photos::add_photo, "Store a photo of an inspection: the image bytes as the body, a JPEG, PNG, WebP or HEIC/HEIF image (its type is read from the bytes, never the Content-Type; any other bytes are a 415); answers {photo_id, sha256, size, content_type}")
            .access(role(Inspector)).photo().raw("image/*").created(),
        post("/api/cases", cases::create, "Open a case: {origin (complaint | hotline | screening | connection | staff), opened_on, reported_by?, description?, asset_id?, connection_id?, parcel_id?, inspection_id?}")
            .access(role(Officer)).json_write().json(Some(t::<OpenCase>)).created(),
        post("/api/cases/from-connections", cases::create_from_connections, "Open a case for each connection found illicit or needing review that no case names: {opened_on}")
            .access(role(Officer)).json_write().json(None).created(),
        post("/api/cases/{id}/actions", cases::add_action, "Log an action: {kind, on, at?, by?, method?, outcome?, violations?, results?, connection_id?, notes?}")
            .access(role(Officer)).json_write().json(Some(t::<Action>)).created(),
        Route::new("put", "/api/cases/{id}/respondent", axum::routing::put(cases::set_respondent), "Set or correct who an open case is against: {name, kind (individual | business | public_body | state | unknown), acting_for_state? (yes | no | unknown), basis?}; audited")
            .access(role(Officer)).json_write().json(Some(t::<RespondentRequest>)),
        post("/api/cases/{id}/close", cases::close_case, "Close a case: {closure (eliminated | unfounded | referred), on, by?, notes?, referred_to?, connection_id?}; with If-Match (the case's ETag), a case changed since is a 412")
            .access(role(Officer)).json_write().json(Some(t::<Closing>)).if_match(),
        post("/api/sites", sites::create, "Open a construction site: {determination? (as POST /api/determinations answered it, stored as answered), footprint?, parcels?, name?, owner?, developer?, operator?, disturbed_sqft?, phases?, swppp_preparer?, swppp_accepted_on?, swppp_accepted_by?, noi_id?, spdes_permit_id?, start_on?, qualified_inspector?, trained_contractor?, rain_gauge?, milestones?: [{milestone, at}]}")
            .access(role(Officer)).json_write().json(Some(t::<crate::sites::open::OpenSite>)).created(),
        post("/api/sites/{id}/actions", sites::add_action, "Log an action on a site: {kind (approved | started | inspection | notice | stop_work | stop_work_lifted | milestone_notice | guarantee | guarantee_released | stabilized | as_built | agreement_recorded | easement_recorded | close), on, at?, by?, role?, practices?, deficiencies?, disturbed_sqft?, soil_disturbance?, photos?, milestone?, milestone_at?, case_id?, guarantee?, reference?, cover_percent?, equivalent_measures?, certified_by?, deed_restriction?, recording?, smps?, notes?}; an inspector's token logs inspections only; with If-Match (the site's ETag) a site changed since is a 412; Idempotency-Key stores it once")
            .access(role(Inspector)).json_write().json(Some(t::<crate::sites::SiteAction>)).created().if_match(),
        post("/api/rainfall", sites::add_rainfall, "Record daily rainfall: {entries: [{gauge_id, day, inches}]}; a day at a gauge recorded again is replaced; Idempotency-Key stores a request once (200 when sent again)")
            // Bulk records, as an import is: the server's body limit, not a JSON write's.
            .access(role(Officer)).json(Some(t::<crate::sites::rainfall::RainfallRequest>)).created().also("200", "the same request again: nothing written"),
        post("/api/rainfall/import", sites::import_rainfall, "Upload daily rainfall as the CSV `ms4 rainfall import` reads (a header naming gauge_id, day and inches, then a line per gauge and day); a bad line is a 422 naming it and nothing is stored; Idempotency-Key stores a request once (200 when sent again)")
            .access(role(Officer)).raw("text/csv").created().also("200", "the same request again: nothing written"),
        post("/api/calendar/records", calendar::add_record, "Record a programme submission, which shows its occurrence done in the calendar: {item_id (a [calendar] item not per case), for_due_on (the day the occurrence fell due), submitted_on (not in the future), submitted_by, reference?, note?}; a field at fault is a 400 naming it; an occurrence recorded already is a 409 naming its submission, nothing written; answers the submission with late_by_days when submitted after its day; Idempotency-Key stores a request once (200 when sent again), as `ms4 calendar record`")
            .access(role(Officer)).json_write().json(Some(t::<crate::programme::SubmissionRequest>))
            .answer_schema(t::<crate::programme::commands::Recorded>).created()
            .also("200", "the same request again under its Idempotency-Key: nothing written").error("409"),
        Route::new("post", "/api/layers/{layer}/import", upload_to_layer, "Upload a file for a layer, as `ms4 import` (multipart: file, and the flags of ms4 import with _ for -: where, id, id_prefix, map (repeatable), src_layer, s_srs, dry_run, replace, allow_empty, allow_mass_delete, invalid); a wrong part is a 400 whose field names it; answers the quality report")
            .access(role(Analyst)).raw("multipart/form-data")
            // An upload's file can be refused as a whole (422) besides the form's errors.
            .also("201", "imported: the quality report").error("422"),
        Route::new("post", "/api/import", upload_any, "Upload a file for the layers the form names (multipart: the parts of /api/layers/{layer}/import, and `layer` or `layer_by`, which splits the file over several layers in one transaction); answers the quality report, a report per layer when split")
            .access(role(Analyst)).raw("multipart/form-data")
            .also("201", "imported: the quality report").error("422"),
        get("/api/tokens", tokens::list, "List tokens (never the tokens themselves)").access(role(Admin)),
        post("/api/tokens", tokens::create, "Create a token: {role, subject, expires_at?}; the answer shows it once")
            .access(role(Admin)).json(None).created(),
        delete("/api/tokens/{id}", tokens::revoke, "Revoke a token").access(role(Admin)),
    ]
}

impl Route {
    /// The annual report: JSON, or CSV with `format=csv`.
    fn report(mut self) -> Self {
        let ok = &mut self.op().answers[0];
        ok.description = "the report";
        ok.media = vec![(JSON, None), ("text/csv", None)];
        self
    }

    /// A photo's bytes: the photo limit.
    fn photo(mut self) -> Self {
        self.limit = Limit::Photo;
        self
    }

    /// Sent with the case's ETag, a close of a case changed since is refused (412).
    fn if_match(mut self) -> Self {
        self.op().if_match = true;
        self.error("412")
    }
}

/// The router of every route in the table, each behind its own access check; several
/// methods of one path are one route (axum merges the method routers).
pub(super) fn router(state: &AppState) -> Router<AppState> {
    routes().into_iter().fold(Router::new(), |router, route| {
        let path = route.path;
        router.route(path, route.mounted(state))
    })
}
