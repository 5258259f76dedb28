/**
 * One stylesheet, inlined under the CSP nonce. Colours keep at least 4.5:1 contrast; focus is always
 * visible; the layout is a single column that fits a 320 px screen, and `.popup` tightens it for the
 * small window of `display=popup`.
 */
export const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:100%;line-height:1.5;color:#1b1f24;background:#f3f5f8}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem}
.skip:focus{left:1rem}
header{width:100%;max-width:30rem;padding:1.5rem 1rem .5rem;display:flex;align-items:center;gap:.75rem}
.brand{font-weight:700;font-size:1.125rem;letter-spacing:.02em}
.badge{font-size:.75rem;font-weight:600;text-transform:uppercase;background:#fff4d6;color:#6b4500;border:1px solid #c98f00;border-radius:999px;padding:.1rem .6rem}
main{width:100%;max-width:30rem;padding:0 1rem 2rem}
.card{background:#fff;border:1px solid #d5dae1;border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 2px rgba(0,0,0,.05)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem}
h2{font-size:1rem;margin:1.25rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:#4a5361}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password],select{width:100%;font:inherit;padding:.6rem .75rem;border:1px solid #6b7482;border-radius:.5rem;background:#fff;color:inherit}
button{font:inherit;font-weight:600;cursor:pointer;border-radius:.5rem;padding:.7rem 1rem;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;width:100%;margin-top:1rem}
button.secondary{background:#fff;color:#1d4ed8}
button.danger{border-color:#b42318;background:#fff;color:#b42318}
button:hover{filter:brightness(.95)}
button.link{width:auto;background:none;border:none;padding:.25rem 0;color:#1d4ed8;text-decoration:underline;font-weight:400}
form.cancel{margin-top:1rem;text-align:center}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.row{display:flex;gap:.75rem}
.row>*{flex:1}
.personas{list-style:none;padding:0;margin:0;display:grid;gap:.75rem}
.persona{display:flex;gap:.75rem;align-items:center;border:1px solid #d5dae1;border-radius:.75rem;padding:.75rem}
.persona img,.persona .avatar{width:3rem;height:3rem;border-radius:50%;flex:none;background:#e6e9ee}
.persona div{flex:1}
.persona button{margin-top:.25rem;padding:.45rem .75rem}
.persona p{margin:0;font-size:.875rem;color:#4a5361}
.alert{border-left:4px solid #b42318;background:#fdf0ef;color:#7a1a12;padding:.75rem 1rem;border-radius:.25rem;margin:1rem 0}
.scopes{padding-left:1.25rem}
.scopes li{margin:.25rem 0}
.purpose{background:#f3f5f8;border-radius:.5rem;padding:.75rem 1rem;margin:.5rem 0}
video{width:100%;border-radius:.5rem;background:#000;aspect-ratio:4/3}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dt{font-weight:600}
dd{margin:0;word-break:break-all}
footer{font-size:.875rem;color:#4a5361;margin-top:1rem}
.popup header{padding:.75rem .75rem .25rem}
.popup main{padding:0 .75rem 1rem}
.popup .card{padding:1rem;border-radius:.5rem}
.popup h1{font-size:1.25rem}
.popup .persona{padding:.5rem}
@media (max-width:22rem){.row{flex-direction:column;gap:0}}
@media (prefers-color-scheme:dark){
 html{color:#e8ebef;background:#14171c}
 .card,.persona{background:#1d2128;border-color:#3a414c}
 .muted,.persona p,footer{color:#b7bfca}
 input[type=email],input[type=password],select{background:#14171c;border-color:#8b95a3}
 button{background:#3b6cf0;border-color:#3b6cf0}
 button.secondary{background:#1d2128;color:#a8c1ff;border-color:#a8c1ff}
 button.danger{background:#1d2128;color:#ffb4ab;border-color:#ffb4ab}
 button.link{background:none;color:#a8c1ff}
 .purpose{background:#14171c}
 .alert{background:#3a1714;color:#ffd9d4}
 .skip{background:#1d2128}
}
`;
