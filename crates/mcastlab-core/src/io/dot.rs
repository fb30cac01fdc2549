//! Graphviz DOT export: switches as boxes, endpoints as ellipses, links labelled with port numbers;
//! directed links (unidirectional rings) get arrows.

use crate::fabric::{Fabric, Terminal};

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

pub fn to_dot(f: &Fabric) -> String {
    let mut out = String::new();
    out.push_str(&format!("digraph {} {{\n", quote(f.name())));
    out.push_str("  graph [overlap=false];\n  node [fontsize=10];\n  edge [fontsize=8];\n");
    for s in f.switches() {
        out.push_str(&format!("  {} [shape=box];\n", quote(&s.name)));
    }
    for e in f.endpoints() {
        out.push_str(&format!("  {} [shape=ellipse];\n", quote(&e.name)));
    }
    for l in f.links() {
        let end = |t: &Terminal| match *t {
            Terminal::Switch { switch, port } => (f.switch(switch).name.clone(), port.0.to_string()),
            Terminal::Endpoint { endpoint } => (f.endpoint(endpoint).name.clone(), String::new()),
        };
        let (a, pa) = end(&l.a);
        let (b, pb) = end(&l.b);
        out.push_str(&format!(
            "  {} -> {} [dir={}, taillabel={}, headlabel={}];\n",
            quote(&a),
            quote(&b),
            if l.directed { "forward" } else { "none" },
            quote(&pa),
            quote(&pb)
        ));
    }
    out.push_str("}\n");
    out
}
