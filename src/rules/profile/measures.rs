//! Units, area thresholds, distance tolerances and inspection intervals of a profile.

use serde::{Deserialize, Serialize};

/// Square feet in one acre (U.S. survey acre, the conversion the rule catalogue uses).
pub const SQFT_PER_ACRE: f64 = 43_560.0;

str_enum! {
    /// Unit of an area threshold.
    pub enum ThresholdUnit("unit") {
        /// Square feet.
        Sqft = "sqft",
        /// Acres (43,560 sq ft).
        Acre = "acre",
    }
}

impl ThresholdUnit {
    /// Square feet in one of this unit.
    pub fn sqft_per_unit(self) -> f64 {
        match self {
            ThresholdUnit::Sqft => 1.0,
            ThresholdUnit::Acre => SQFT_PER_ACRE,
        }
    }
}

str_enum! {
    /// Unit of a distance tolerance.
    pub enum DistanceUnit("unit") {
        /// International foot (0.3048 m).
        Ft = "ft",
        /// U.S. survey foot (1200/3937 m), the unit of most U.S. State Plane CRSs.
        UsFt = "us_ft",
        /// Metre.
        M = "m",
    }
}

impl DistanceUnit {
    /// Metres in one of this unit.
    pub fn metres_per_unit(self) -> f64 {
        match self {
            DistanceUnit::Ft => 0.3048,
            DistanceUnit::UsFt => 1200.0 / 3937.0,
            DistanceUnit::M => 1.0,
        }
    }
}

str_enum! {
    /// Unit of an inspection interval.
    pub enum TimeUnit("unit") {
        /// Clock hours.
        Hours = "hours",
        /// Calendar days.
        CalendarDays = "calendar_days",
        /// Business days of the jurisdiction's calendar.
        BusinessDays = "business_days",
    }
}

str_enum! {
    /// How a measured area is compared with a threshold's value.
    #[derive(Default)]
    pub enum Comparison("comparison") {
        /// Area >= value ("equal to or greater than", "or more"): the default.
        #[default]
        AtLeast = ">=",
        /// Area > value.
        MoreThan = ">",
        /// Area <= value ("not more than").
        AtMost = "<=",
        /// Area < value ("less than").
        LessThan = "<",
    }
}

impl Comparison {
    /// Whether `measured <op> limit` holds.
    pub fn holds(self, measured: f64, limit: f64) -> bool {
        match self {
            Comparison::AtLeast => measured >= limit,
            Comparison::MoreThan => measured > limit,
            Comparison::AtMost => measured <= limit,
            Comparison::LessThan => measured < limit,
        }
    }
}

/// One area threshold of the law, with where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    /// The number as the law states it (positive).
    pub value: f64,
    /// `sqft` or `acre`.
    pub unit: ThresholdUnit,
    /// How a project's area is compared with `value`; `>=` when omitted.
    #[serde(default)]
    pub comparison: Comparison,
    /// Catalogue id of the rule that uses the threshold.
    pub rule: String,
    /// Where the law states it.
    pub citation: String,
    /// The law's words, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// What a reader should know (e.g. the ambiguity it depends on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Threshold {
    /// The value in square feet.
    pub fn sqft(&self) -> f64 {
        self.value * self.unit.sqft_per_unit()
    }

    /// The value in acres, unrounded.
    pub fn acres(&self) -> f64 {
        self.sqft() / SQFT_PER_ACRE
    }

    /// Whether an area in square feet meets the threshold (`area <comparison> value`).
    pub fn is_met_by_sqft(&self, area_sqft: f64) -> bool {
        self.comparison.holds(area_sqft, self.sqft())
    }
}

macro_rules! named_thresholds {
    ($( $(#[$doc:meta])* $field:ident, )+) => {
        /// The area thresholds a profile may state; each is optional because no law has all.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Thresholds {
            $(
                $(#[$doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<Threshold>,
            )+
        }

        impl Thresholds {
            /// The TOML keys this struct knows.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field),)+];

            /// The thresholds present, with their TOML key.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Threshold)> + '_ {
                [$((stringify!($field), self.$field.as_ref()),)+]
                    .into_iter()
                    .filter_map(|(name, t)| t.map(|t| (name, t)))
            }
        }
    };
}

named_thresholds! {
    /// Land development activity: North Castle and Carmel, 5,000 sq ft.
    land_development_activity,
    /// Carmel: an activity under one acre that is part of a larger common plan is a land
    /// development activity.
    larger_common_plan,
    /// Construction activity: North Castle 1 acre; Windsor 0.5 acre.
    construction_activity,
    /// North Castle: construction general permit coverage, 1 acre.
    gp_coverage,
    /// North Castle: general permit coverage in the NYC East of Hudson Watershed, 5,000 sq ft.
    gp_coverage_nyc_east_of_hudson,
    /// North Castle: qualified-inspector inspections every seven days from 1 acre.
    qualified_inspector,
    /// Carmel Condition Two: five acres or more.
    condition_two,
    /// Carmel Condition Three, lower bound: one acre.
    condition_three_min,
    /// Carmel Condition Three, upper bound: under five acres.
    condition_three_max,
    /// Most area disturbed at one time without an approved SWPPP: 5 acres.
    max_disturbance_at_one_time,
    /// Carmel: routine maintenance is exempt when it disturbs less than five acres.
    routine_maintenance_exemption,
}

impl Thresholds {
    /// The threshold with TOML key `name`, if the profile states it.
    pub fn get(&self, name: &str) -> Option<&Threshold> {
        self.iter().find(|(n, _)| *n == name).map(|(_, t)| t)
    }
}

/// A distance in the profile's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// The distance (positive).
    pub value: f64,
    /// `ft`, `us_ft` or `m`.
    pub unit: DistanceUnit,
}

impl Tolerance {
    /// The distance in metres.
    pub fn metres(&self) -> f64 {
        self.value * self.unit.metres_per_unit()
    }

    /// The distance in the linear unit of a CRS, given the length of that unit in metres
    /// (1.0 for metres, 0.3048 for feet, 1200/3937 for US survey feet). `None` when
    /// `metres_per_unit` is not a positive finite number.
    pub fn in_crs_units(&self, metres_per_unit: f64) -> Option<f64> {
        (metres_per_unit.is_finite() && metres_per_unit > 0.0)
            .then(|| self.metres() / metres_per_unit)
    }
}

/// Distances the spatial code uses. Design defaults, not law: the texts state none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerances {
    /// Pipe ends and structures closer than this are one node of the drainage network.
    pub snap_tolerance: Tolerance,
    /// A connection record that names no connection documents the connections whose MS4
    /// end lies within this distance of the record's point.
    pub record_tolerance: Tolerance,
    /// An outfall with no `receiving_water_id` discharges to the nearest receiving water
    /// within this distance.
    pub receiving_water_tolerance: Tolerance,
}

impl Tolerances {
    /// Each tolerance with its TOML key.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Tolerance)> + '_ {
        [
            ("snap_tolerance", &self.snap_tolerance),
            ("record_tolerance", &self.record_tolerance),
            ("receiving_water_tolerance", &self.receiving_water_tolerance),
        ]
        .into_iter()
    }
}

/// How often, or how soon after an event, an inspection is due.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectionInterval {
    /// Periodic: every N units. Exactly one of `every` and `within` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u32>,
    /// Deadline: within N units after the event named in `after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<u32>,
    /// `hours`, `calendar_days` or `business_days`.
    pub unit: TimeUnit,
    /// The event a `within` deadline runs from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Which projects or premises the interval applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applies_when: Option<String>,
    /// For a storm trigger: the least rainfall, in inches, that starts the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rainfall_inches: Option<f64>,
    /// Catalogue id of the rule.
    pub rule: String,
    /// Where the law states it.
    pub citation: String,
    /// The law's words, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

impl InspectionInterval {
    /// True for `every` N units, false for `within` N units after an event.
    pub fn is_periodic(&self) -> bool {
        self.every.is_some()
    }

    /// The N of `every` or `within`.
    pub fn amount(&self) -> u32 {
        self.every.or(self.within).unwrap_or(0)
    }
}
