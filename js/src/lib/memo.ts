/** A component that re-renders only when one of its props changes (by identity). */
import { Component, type ComponentChildren, type FunctionComponent, h } from "preact";

export function shallowEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.is(a[k], b[k]));
}

export function memo<P extends object>(component: FunctionComponent<P>): FunctionComponent<P> {
  class Memo extends Component<P> {
    shouldComponentUpdate(next: P): boolean {
      return !shallowEqual(this.props as Record<string, unknown>, next as Record<string, unknown>);
    }
    render(props: P): ComponentChildren {
      return h(component, props);
    }
  }
  (Memo as unknown as { displayName: string }).displayName = `memo(${component.displayName ?? component.name})`;
  return Memo as unknown as FunctionComponent<P>;
}
