//! Summary statistics: means, nearest-rank quantiles and 95 % confidence intervals by batch means.

/// Two-sided 97.5 % quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

fn t975(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T975[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Half-width of the 95 % confidence interval of the mean of `means` (batch means); `None`
/// with fewer than two.
pub(crate) fn ci95(means: &[f64]) -> Option<f64> {
    let b = means.len();
    if b < 2 {
        return None;
    }
    let mean = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (b - 1) as f64;
    Some(t975(b - 1) * (var / b as f64).sqrt())
}

/// The `q` quantile (nearest rank) of sorted values.
pub(crate) fn quantile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

/// Mean of `sum` over `n`, `None` for none.
pub(crate) fn mean(sum: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_means_interval_and_quantiles() {
        // Means 1..=5: s² = 2.5, half-width t(4)·sqrt(2.5/5).
        let h = ci95(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!((h - 2.776 * 0.5f64.sqrt()).abs() < 1e-12, "{h}");
        assert_eq!(ci95(&[3.0]), None);
        assert_eq!(ci95(&[2.0, 2.0, 2.0]), Some(0.0));
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!((quantile(&v, 0.5), quantile(&v, 0.95), quantile(&v, 1.0)), (Some(50), Some(95), Some(100)));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
