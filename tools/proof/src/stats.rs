//! Latency percentiles.

use std::time::Duration;

/// A duration in milliseconds, as the reports print latencies.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `p`-th percentile (0–100) of `samples` (times, sizes), by nearest rank; the
/// default (zero) of none.
pub fn percentile<T: Ord + Copy + Default>(samples: &mut [T], p: f64) -> T {
    if samples.is_empty() {
        return T::default();
    }
    samples.sort_unstable();
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let mut samples: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&mut samples, 50.0), Duration::from_millis(50));
        assert_eq!(percentile(&mut samples, 99.0), Duration::from_millis(99));
        assert_eq!(percentile(&mut samples, 100.0), Duration::from_millis(100));
        assert_eq!(percentile::<Duration>(&mut [], 50.0), Duration::ZERO);
        assert_eq!(percentile(&mut [300_usize, 100, 200], 50.0), 200);
    }
}
