"""Pages for the deny_clicks tests. Every control reports a press by POSTing to the site,
so the site's hit log says whether the page's own code ever saw it."""

from __future__ import annotations

from tests.guard.name_corpus import IMG

# `pressed(name)` is the page's own reaction to a press.
HEAD = """<!doctype html><meta charset="utf-8"><title>clicks</title>
<script>
function pressed(name) { navigator.sendBeacon('/hit/pressed-' + name, name); }
// A page that listens on window in the capture phase, before any other listener it has.
window.addEventListener('click', (e) => {
  const el = e.composedPath()[0];
  if (el && el.id) pressed('window-capture-' + el.id);
}, true);
</script>
"""

CONTROLS = HEAD + """
<button id="text" onclick="pressed('text')">Proceed to submission</button>
<button id="aria" aria-label="Pay now" onclick="pressed('aria')"><svg width="8" height="8">
  </svg></button>
<form id="valueform" onsubmit="event.preventDefault(); pressed('value')">
  <input type="submit" id="value" value="Proceed to submission"></form>
<button id="upper" onclick="pressed('upper')">PROCEED   TO
  SUBMISSION</button>
<button id="down" onmousedown="pressed('mousedown')">Proceed to submission</button>
<x-shadow id="host"></x-shadow>
<form id="rsform" onsubmit="event.preventDefault(); pressed('requestSubmit')">
  <button id="rsbutton" type="submit">Proceed to submission</button></form>
<button id="save" onclick="pressed('save')">Save draft</button>
<!-- Issue 27: names that read as a denied one only under full case folding. -->
<button id="turkish" onclick="pressed('turkish')">PROCEED TO SUBMİSSİON</button>
<button id="sharp" onclick="pressed('sharp')">ZAHLUNG ABSCHLIESSEN</button>
<a id="paylink" href="/hit/pressed-link-navigation">Pay now</a>
<!-- Issue 10's four shapes; Chrome's tree names each "Proceed to submission". -->
<style>#gen::before { content: "Proceed to submission"; }
       #gen-save::before { content: "Save draft"; }</style>
<button id="gen" onclick="pressed('gen')"></button>
<button id="gen-save" onclick="pressed('gen-save')"></button>
<button id="arrow" onclick="pressed('arrow')"><span aria-label="Proceed to submission">&rarr;</span>
  </button>
<input type="checkbox" id="agree" onclick="pressed('agree')">
<label for="agree" id="agree-label">Proceed to submission</label>
<input type="checkbox" id="subscribe" onclick="pressed('subscribe')">
<label for="subscribe">Subscribe</label>
<img id="mapimg" src="{IMG}" usemap="#controlsmap" alt="map" width="100" height="50">
<map name="controlsmap">
  <area shape="rect" coords="0,0,50,50" href="/hit/pressed-area-navigation"
        onclick="pressed('area')" alt="Proceed to submission">
  <area shape="rect" coords="50,0,100,50" href="#saved" onclick="pressed('area-save')"
        alt="Save draft"></map>
<script>
customElements.define('x-shadow', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<button id="inner">Proceed to <b>submission</b></button>';
    root.getElementById('inner').addEventListener('click', () => pressed('shadow'));
  }
});
</script>
<iframe id="frame" src="{B}/page/click-frame" width="300" height="80"></iframe>
""".replace("{IMG}", IMG)

FRAME = """<!doctype html><meta charset="utf-8">
<button id="framed" onclick="fetch('{A}/hit/pressed-oopif', {method: 'POST', body: 'x'})">
  Proceed to submission</button>
<button id="framed-ok" onclick="fetch('{A}/hit/pressed-oopif-ok', {method: 'POST', body: 'x'})">
  Save draft</button>
"""

LABELS = """<!doctype html><meta charset="utf-8"><title>labels</title>
<span id="lbl1">Send</span><span id="lbl2">filing</span>
<button id="labelledby" aria-labelledby="lbl1 lbl2">ignored text</button>
<button id="arialabel" aria-label="  Pay   now ">x</button>
<label for="withlabel">Submit the form</label><input type="submit" id="withlabel" value="Go">
<input type="button" id="inputvalue" value="Proceed">
<input type="image" id="inputimage" alt="Checkout" src="data:,">
<button id="nested"> Proceed <span>to</span>
   <em>submission</em> </button>
<button id="hiddenpart">Pay <span style="display:none">secretly</span> now</button>
<button id="titled" title="Delete account"></button>
<button id="img"><img alt="Pay now" src="data:,"></button>
<div id="rolebutton" role="button">Pay now</div>
<details><summary id="summary">More details</summary>x</details>
<a id="link" href="#x">Go to checkout</a>
<a id="nolink">Not a link</a>
<button id="masked" aria-label="Cancel">Proceed to submission</button>
<input type="checkbox" id="checkbox"><label for="checkbox">Proceed to submission</label>
<label id="wrapped-label"><input type="checkbox" id="wrapped"> <b>Agree</b></label>
<input type="radio" id="radio" name="r">
<img src="{IMG}" usemap="#labelsmap" alt="map"><map name="labelsmap">
  <area id="area" shape="rect" coords="0,0,50,50" href="#a" alt="Go there"></map>
<select size="3"><option id="listoption">First</option><option>Second</option></select>
<label id="textlabel" for="textinput">Name</label><input id="textinput">
<button id="shy">Pro&shy;ceed to sub&#8203;mission</button>
<div id="twotokens" role="none button">Go</div>
<div id="plain">Not pressable</div>
<x-slotted id="slotted">Proceed <i>now</i></x-slotted>
<script>
customElements.define('x-slotted', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: 'open'}).innerHTML =
      '<div role="button" id="shadowbutton">Step: <slot></slot></div>';
  }
});
</script>
""".replace("{IMG}", IMG)
