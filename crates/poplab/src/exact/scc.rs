//! Strongly connected components (Tarjan's algorithm, iterative) of the explored transition graph.

use super::space::Space;
use crate::protocol::Protocol;

const UNVISITED: u32 = u32::MAX;

/// The strongly connected components of the subgraph induced by the configurations for which
/// `include` holds, in reverse topological order: every component comes after every component it
/// has an edge to (sinks first). Returns the components and, per configuration, its component
/// number (`u32::MAX` for excluded configurations).
pub(crate) fn components<P: Protocol>(
    space: &Space<'_, P>,
    include: impl Fn(u32) -> bool,
) -> (Vec<Vec<u32>>, Vec<u32>) {
    let len = space.len();
    let mut order = vec![UNVISITED; len];
    let mut low = vec![0u32; len];
    let mut on_stack = vec![false; len];
    let mut component_of = vec![UNVISITED; len];
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut components: Vec<Vec<u32>> = Vec::new();
    let mut counter = 0u32;
    for root in 0..len as u32 {
        if order[root as usize] != UNVISITED || !include(root) {
            continue;
        }
        order[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        calls.push((root, 0));
        while let Some(&mut (v, ref mut position)) = calls.last_mut() {
            let targets = space.targets_of(v);
            if *position < targets.len() {
                let w = targets[*position];
                *position += 1;
                if !include(w) {
                    continue;
                }
                if order[w as usize] == UNVISITED {
                    order[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(order[w as usize]);
                }
            } else {
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u as usize] = low[u as usize].min(low[v as usize]);
                }
                if low[v as usize] == order[v as usize] {
                    let number = components.len() as u32;
                    let mut component = Vec::new();
                    loop {
                        let w = stack.pop().expect("v is on the stack");
                        on_stack[w as usize] = false;
                        component_of[w as usize] = number;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    components.push(component);
                }
            }
        }
    }
    (components, component_of)
}
