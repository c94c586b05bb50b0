// The package ships no types: what the tests use of it (text in, metric families out).
declare module "parse-prometheus-text-format" {
  interface MetricFamily {
    name: string;
    help: string;
    type: string;
    metrics: Array<{ value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }>;
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
