// Copying to the clipboard, with the old-fashioned path for pages where the async clipboard is
// refused (an http:// address on the LAN is not a secure context, so navigator.clipboard is
// missing there) — a Copy button that silently does nothing is worse than none.
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection path
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/**
 * Gives each code block of a rendered answer its own Copy button. The blocks arrive from the
 * render worker a slice at a time, so a MutationObserver adds buttons as they appear; the
 * button copies the block's code as written, never the markup nor the language label.
 */
export function codeCopyButtons(host: HTMLElement, announce: (message: string) => void): () => void {
  const add = () => {
    for (const pre of host.querySelectorAll<HTMLPreElement>("pre:not([data-copyable])")) {
      pre.dataset.copyable = "";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "btn small copy-code";
      button.textContent = "Copy code";
      button.addEventListener("click", () => {
        void copyText(codeOf(pre)).then((ok) =>
          announce(ok ? "Code copied." : "The browser refused to copy; select the code and copy it by hand."),
        );
      });
      pre.before(button);
    }
  };
  add();
  const observer = new MutationObserver(add);
  observer.observe(host, { childList: true, subtree: true });
  return () => observer.disconnect();
}

/**
 * The code of a rendered block: its <code> element's text. The <pre> also holds the language
 * label ("python"), which its innerText included; the fence's closing newline is not code.
 */
export function codeOf(pre: HTMLElement): string {
  const code = pre.querySelector("code");
  return code ? (code.textContent ?? "").replace(/\n$/, "") : pre.innerText;
}
