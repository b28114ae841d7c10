/**
 * The operator's pages (docs/behaviour.md, "Swarm UI"): recent runs and the
 * try-out bench, one small framework-free client bundled by the controller
 * at start (entrypoints/controller/http/routes/ui.ts). The fragment picks the
 * page (`#runs`, `#try-out`, `#rules`), so each works without the server knowing them.
 */
import { loadConfig } from './api.ts'
import { h } from './dom.ts'
import { createRulesPage } from './rules-page.ts'
import { createRunsPage } from './runs-page.ts'
import { createTryOutPage } from './try-out-page.ts'

async function start(): Promise<void> {
  const root = document.getElementById('app')
  if (root === null) return
  const config = await loadConfig()
  const runs = createRunsPage(config)
  const tryOut = createTryOutPage(config)
  const rules = createRulesPage()
  const links = {
    runs: h('a', { href: '#runs' }, 'Recent runs'),
    'try-out': h('a', { href: '#try-out' }, 'Try-out'),
    rules: h('a', { href: '#rules' }, 'Rules'),
  }
  const pages = { runs, 'try-out': tryOut, rules }
  const titles = { runs: 'Recent runs', 'try-out': 'Try-out', rules: 'Rules' }
  const main = h('main', { id: 'main', tabindex: '-1' }, runs.element, tryOut.element, rules.element)
  // The fragment names the page, so the skip link moves the focus itself instead of changing it.
  const skip = h('a', { class: 'skip-link', href: '#main' }, 'Skip to the page')
  skip.addEventListener('click', (event) => {
    event.preventDefault()
    main.focus()
  })
  root.replaceChildren(
    skip,
    h(
      'header',
      { class: 'site-head' },
      h('p', { class: 'site-name' }, 'review-classifier'),
      h(
        'nav',
        { 'aria-label': 'Pages' },
        h('ul', {}, h('li', {}, links.runs), h('li', {}, links['try-out']), h('li', {}, links.rules)),
      ),
    ),
    main,
  )

  function route(): void {
    // `#try-out?repo=…` opens the bench prefilled, `#rules?repo=…` a repo's rules; `#runs?…` and `#runs/<id>` are the runs page's own.
    const page = location.hash.startsWith('#try-out')
      ? 'try-out'
      : location.hash.startsWith('#rules')
        ? 'rules'
        : 'runs'
    for (const [name, link] of Object.entries(links)) {
      if (name === page) link.setAttribute('aria-current', 'page')
      else link.removeAttribute('aria-current')
    }
    for (const [name, each] of Object.entries(pages)) if (name !== page) each.hide()
    pages[page].show()
    document.title = `${titles[page]} · review-classifier`
  }
  window.addEventListener('hashchange', () => {
    route()
    if (!location.hash.startsWith('#runs/')) main.focus()
  })
  route()
}

void start()
