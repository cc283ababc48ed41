# Makes 0002-wllama-glue-on-this-llama-cpp.patch: ports wllama 3.13's cpp/wllama-context.h to
# the llama.cpp of node-llama-cpp's bundle (2026-09-12), which predates the server features the
# glue uses (realtime audio, TTS, decision models, chat sessions). Kept to redo the patch when
# either side is bumped: python3 port-glue.py <copy of wllama-context.h>, then diff -u.
import re, sys
p = sys.argv[1]
s = open(p).read()
lines = s.split('\n')
def find(pat, start=0):
    for i in range(start, len(lines)):
        if pat in lines[i]:
            return i
    raise SystemExit('not found: ' + pat)
def cut_block(start_pat, end_pat_exact, start_from=0):
    """remove lines from the one containing start_pat up to and including the first line == end_pat_exact"""
    a = find(start_pat, start_from)
    b = a
    while lines[b] != end_pat_exact:
        b += 1
    del lines[a:b+1]
    return a
# includes of files this llama.cpp does not have
del lines[find('#include "server-decision.h"')]
i = find('#include "server-realtime.cpp"'); del lines[i-1:i+1]
# realtime sessions (audio in/out), not in this llama.cpp
a = find('// no socket here: client events come from action_realtime_send')
b = find('struct wllama_context', a)
del lines[a:b-1]
s = '\n'.join(lines)

def rep(old, new, count=1):
    global s
    if s.count(old) != count:
        raise SystemExit('expected %d of %r, found %d' % (count, old[:80], s.count(old)))
    s = s.replace(old, new)

rep('''  // the one inside ctx_server is private, so we keep our own copy
  server_decision_context decision;
  struct decision_request
  {
    std::vector<server_decision_question> questions;
    std::vector<std::vector<float>> scores; // indexed by task index
    int32_t n_tokens = 0;
  };
  std::unordered_map<int, decision_request> decision_reqs; // keyed by req_id
''', '')
rep('''  std::unordered_map<int, std::unique_ptr<realtime_session>> realtime_sessions; // keyed by req_id

  mtmd_helper_cap mtmd_cap{};
  llama_tokens asr_prompt; // prompt of the "asr" chat template, for live ASR
''', '')
rep('''    common_chat_session chat_session;

    if (is_asr)
    {
      if (files.size() != 1)
      {
        throw app_exception("Transcription needs exactly one audio file");
      }
      std::map<std::string, uploaded_file> in_files;
      in_files["file"].data = std::move(files[0]);
      body = convert_transcriptions_to_chatcmpl(body, meta->chat_params.tmpls.get(), in_files, files);
    }
''', '''    if (is_asr)
    {
      throw app_exception(NOT_IN_THIS_BUILD);
    }
''')
rep('''      json body_parsed = oaicompat_chat_params_parse(
          vocab,
          body,
          meta->chat_params,
          dummy_files,
          chat_session);''', '''      json body_parsed = oaicompat_chat_params_parse(
          body,
          meta->chat_params,
          dummy_files);''')
rep('''      task.apply_chat_session(chat_session);
''', '')
rep('rd.post_tasks(std::move(tasks), chat_session);', 'rd.post_tasks(std::move(tasks));')
rep('''    decision.init(model);
    mtmd_cap = mtmd_helper_get_capabilities(model, shared_mctx);
    asr_prompt = server_chat_get_asr_prompt(model);
''', '')
rep('''    res.has_audio_output.value = server_meta.has_cap_tts;
    res.has_chat.value = server_meta.has_cap_chat;
    res.has_audio_stream.value = server_meta.has_audio_stream;
    res.has_live_asr.value = server_meta.has_audio_stream && (!mtmd_cap.chat || !asr_prompt.empty());
    res.audio_input_rate.value = server_meta.has_inp_audio ? mtmd_get_audio_sample_rate(shared_mctx) : 0;
    res.audio_output_rate.value = server_meta.has_cap_tts ? mtmd_gen_audio_get_info(shared_mctx).sample_rate : 0;
    res.audio_voices.arr = server_meta.tts_voices;''', '''    // this llama.cpp has no audio output, audio streaming or decision models; every model can chat
    res.has_audio_output.value = false;
    res.has_chat.value = true;
    res.has_audio_stream.value = false;
    res.has_live_asr.value = false;
    res.audio_input_rate.value = server_meta.has_inp_audio ? mtmd_get_audio_sample_rate(shared_mctx) : 0;
    res.audio_output_rate.value = 0;''')
# no llama_get_causal_attn in this llama.cpp: refuse image embeddings unless pooling is "last"
rep('if (has_memory && !is_last_pooling && llama_get_causal_attn(lctx))', 'if (has_memory && !is_last_pooling)')
rep('format_prompt_rerank(model, vocab, nullptr, query, document, {}, {}, mtmd_helper_init_opt_default())',
    'format_prompt_rerank(model, vocab, nullptr, query, document, mtmd_helper_init_opt_default())')

def replace_method(sig, body):
    global s
    a = s.index(sig)
    # method ends at the first line "  }" after it
    b = s.index('\n  }\n', a) + len('\n  }\n')
    s = s[:a] + body + s[b:]

replace_method('  glue_msg_systemone_res action_systemone(const char *req_raw)', '''  glue_msg_systemone_res action_systemone(const char *req_raw)
  {
    throw app_exception(NOT_IN_THIS_BUILD);
  }
''')
replace_method('  void create_tts_task(server_response_reader &rd', '')
replace_method('  glue_msg_tts_res action_tts(const char *req_raw)', '''  glue_msg_tts_res action_tts(const char *req_raw)
  {
    glue_msg_tts_res res;
    res.success.value = false;
    res.message.value = NOT_IN_THIS_BUILD;
    return res;
  }
''')
replace_method('  glue_msg_realtime_start_res action_realtime_start(const char *req_raw)', '''  glue_msg_realtime_start_res action_realtime_start(const char *req_raw)
  {
    glue_msg_realtime_start_res res;
    res.success.value = false;
    res.message.value = NOT_IN_THIS_BUILD;
    return res;
  }
''')
replace_method('  glue_msg_realtime_send_res action_realtime_send(const char *req_raw)', '''  glue_msg_realtime_send_res action_realtime_send(const char *req_raw)
  {
    glue_msg_realtime_send_res res;
    res.success.value = false;
    return res;
  }
''')
replace_method('  json format_decision_response(const decision_request &dreq)', '')
# realtime branch in get_result
a = s.index('    auto session = realtime_sessions.find(req.req_id.value);')
b = s.index('    json data_json;', a)
s = s[:a] + s[b:]
a = s.index('      if (auto *tts = dynamic_cast<server_task_result_tts *>(result.get()))')
b = s.index('      else if (auto *embd', a)
s = s[:a] + '      if (auto *embd' + s[b+len('      else if (auto *embd'):]
a = s.index('      else if (auto *dres = dynamic_cast<server_task_result_decision *>(result.get()))')
b = s.index('      else\n      {\n        // completion result', a)
s = s[:a] + s[b:]
rep('      decision_reqs.erase(req.req_id.value);\n', '', 2)
# response reader: this llama.cpp creates a result state from the task itself
rep('states.push_back(task_result_state());', 'states.push_back(task.create_state());')
rep('void server_response_reader::post_tasks(std::vector<server_task> &&tasks, const common_chat_session &session, bool front)',
    'void server_response_reader::post_tasks(std::vector<server_task> &&tasks, bool front)')
rep('      states.push_back(task_result_state(session));\n', '      states.push_back(child_task.create_state());\n')
rep('    states.push_back(task_result_state(session));\n', '    states.push_back(task.create_state());\n')
rep('struct wllama_context\n{', '''// features of wllama 3.13 that need a newer llama.cpp than this build's
static const char *NOT_IN_THIS_BUILD = "not supported by this llama.cpp build (no audio output, realtime audio or decision models)";

struct wllama_context
{''')
open(p, 'w').write(s)
s = open(p).read()
old = '      realtime_sessions.erase(req.req_id.value);\n'
assert s.count(old) == 1
s = s.replace(old, '')
open(p, 'w').write(s)
s = open(p).read()
anchor = '////////////////////////////\n// common_log'
assert s.count(anchor) == 1
s = s.replace(anchor, '''// server-context.cpp of this llama.cpp calls it from its HTTP routes (unused here, but linked)
server_response_reader::batch_response server_response_reader::wait_for_all(const std::function<bool()> &should_stop)
{
  batch_response batch_res;
  batch_res.results.resize(id_tasks.size());
  while (has_next())
  {
    auto res = next(should_stop);
    if (res == nullptr)
    {
      batch_res.is_terminated = true;
      return batch_res;
    }
    if (res->is_error())
    {
      batch_res.error = std::move(res);
      return batch_res;
    }
    const size_t idx = res->index;
    GGML_ASSERT(idx < batch_res.results.size() && "index out of range");
    batch_res.results[idx] = std::move(res);
  }
  return batch_res;
}

''' + anchor)
open(p, 'w').write(s)
