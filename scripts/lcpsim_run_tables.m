% r = lcpsim_run_tables(r): a run file's string tables (read by lcpsim_load's Octave or
% Matlab branch) as cell columns of strings: bodies.name, shapes.name, the solver's and
% the parameters' legends and component names, tethers.name, joints.name and .type,
% events.kind_legend, lcp.solution_label. Shared by the loaders (lcpsim_load.m, and
% lcpsim_compare_load.m for a comparison's /trajectory, a run in the same layout).
function r = lcpsim_run_tables(r)
  r.bodies.name = lcpsim_cellstr(r.bodies.name);
  r.solver.status_legend = lcpsim_cellstr(r.solver.status_legend);
  if isfield(r.solver, 'source_legend')
    r.solver.source_legend = lcpsim_cellstr(r.solver.source_legend);
  end
  if isfield(r.solver, 'simd_legend')
    r.solver.simd_legend = lcpsim_cellstr(r.solver.simd_legend);
  end
  if isfield(r, 'shapes') && isfield(r.shapes, 'name')
    r.shapes.name = lcpsim_cellstr(r.shapes.name);
  end
  tables = {'shape_type_legend', 'body_type_legend', 'q_components', 'v_components'};
  for k = 1:numel(tables)
    if isfield(r.parameters, tables{k})
      r.parameters.(tables{k}) = lcpsim_cellstr(r.parameters.(tables{k}));
    end
  end
  if isfield(r, 'tethers')
    r.tethers.name = lcpsim_cellstr(r.tethers.name);
  end
  if isfield(r, 'joints')
    r.joints.name = lcpsim_cellstr(r.joints.name);
    r.joints.type = lcpsim_cellstr(r.joints.type);
  end
  if isfield(r, 'events') && isfield(r.events, 'kind_legend')  % event-driven runs
    r.events.kind_legend = lcpsim_cellstr(r.events.kind_legend);
  end
  if isfield(r, 'lcp') && isfield(r.lcp, 'solution_label')  % a cell whatever the count
    r.lcp.solution_label = lcpsim_cellstr(r.lcp.solution_label);
  end
end
