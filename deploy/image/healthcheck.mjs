// The image's HEALTHCHECK: exit 0 when /readyz answers 200 on this container's port, 1 otherwise.
const port = process.env.PORT || '8080';
try {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2500) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
