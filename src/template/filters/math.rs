//! Math filters, with JavaScript number semantics.

use super::common::{FResult, arg, family, num_arg, to_number_or_zero};
use super::names::Filter;
use crate::template::value::{Val, to_number};

family! {
    /// Arithmetic (JavaScript numbers; a non-number counts as 0).
    fn apply<'a>(f, input, args, _) {
        Filter::Abs => Val::Num(to_number_or_zero(&input).abs()),
        Filter::Plus => Val::Num(to_number_or_zero(&input) + num_arg(args, 0)),
        Filter::Minus => Val::Num(to_number_or_zero(&input) - num_arg(args, 0)),
        Filter::Times => Val::Num(to_number_or_zero(&input) * num_arg(args, 0)),
        Filter::DividedBy => {
            let r = to_number_or_zero(&input) / num_arg(args, 0);
            if arg(args, 1).is_some_and(|v| v.truthy_js()) {
                Val::Num(r.floor())
            } else {
                Val::Num(r)
            }
        }
        Filter::Modulo => {
            // LiquidJS's `((v % arg) + arg) % arg`: the sign follows the divisor
            let (v, m) = (to_number_or_zero(&input), num_arg(args, 0));
            Val::Num(((v % m) + m) % m)
        }
        Filter::Ceil => Val::Num(to_number_or_zero(&input).ceil()),
        Filter::Floor => Val::Num(to_number_or_zero(&input).floor()),
        Filter::AtLeast => Val::Num(to_number_or_zero(&input).max(num_arg(args, 0))),
        Filter::AtMost => Val::Num(to_number_or_zero(&input).min(num_arg(args, 0))),
        Filter::Round => {
            let v = to_number_or_zero(&input);
            let d = num_arg(args, 0);
            let amp = 10f64.powf(d);
            // LiquidJS scales by (1 + EPSILON) so that 1.005 rounds up
            Val::Num(js_round((v * amp) * (1.0 + f64::EPSILON)) / amp)
        }
        Filter::ToInteger => Val::Num(to_number(&input)),
    }
}

fn js_round(x: f64) -> f64 {
    // JS Math.round rounds half up (towards +infinity)
    (x + 0.5).floor()
}
