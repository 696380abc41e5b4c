/**
 * The nonce this page's answer allowed for style elements (the edge's CSP names it): CodeMirror
 * writes its styles into a <style> element, which carries it (`EditorView.cspNonce`).
 */
export function styleNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="wf-style-nonce"]')?.content ?? "";
}
