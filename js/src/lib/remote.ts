/** The address of the AG-UI server a remote run is served from (`RemoteRun` puts it in the
 * view's `meta`), else null: such a run is debugged and retried where it runs, so the view
 * offers neither. */
export function remoteOf(meta: Record<string, unknown> | null | undefined): string | null {
  const remote = meta?.remote;
  return typeof remote === "string" ? remote : null;
}

/** The host (and port) of an address, for a short label; the address itself when it does not parse. */
export function hostOf(address: string): string {
  try {
    return new URL(address).host || address;
  } catch {
    return address;
  }
}

/** The framework that executes a hosted run (`pausepoint.host`: its agent in this kernel,
 * `meta.hosted`), else null. Such a run is remote in all but place: no debugger, forks
 * or Retry here. */
export function hostedOf(meta: Record<string, unknown> | null | undefined): string | null {
  const hosted = meta?.hosted;
  return typeof hosted === "string" ? hosted : null;
}
