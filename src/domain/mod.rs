//! The registry's domain: layers and their canonical fields, features, units, discharge
//! kinds, the geometry encoding shared by both stores and the CSV cell every CSV writer
//! uses. No I/O here.

pub mod csv;
pub mod discharge;
pub mod enforcement;
pub mod feature;
pub mod inspection;
pub mod layer;
pub mod photo;
pub mod site;
pub mod text;
pub mod units;
pub mod wkb;
pub mod words;

pub use enforcement::{ActionKind, CaseStatus, Closure, Origin, ServiceMethod};
pub use feature::{Feature, Value};
pub use inspection::{Characterisation, InspectionKind};
pub use layer::{FieldSpec, FieldType, GeomKind, Layer};
pub use site::{InspectorRole, Milestone, SiteActionKind, SiteStatus};
pub use units::{Area, AreaUnit, Length, LengthUnit};
