import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getDefaultVoiceSettings, getModels, getVoices } from '../api';

export const ttsKeys = {
  voices: (search: string) => ['tts', 'voices', search] as const,
  models: ['tts', 'models'] as const,
  defaultSettings: ['tts', 'voice-settings-default'] as const,
};

export function useVoices(search = '') {
  return useQuery({
    queryKey: ttsKeys.voices(search),
    queryFn: ({ signal }) => getVoices(search, signal),
    staleTime: 5 * 60_000,
    placeholderData: search ? keepPreviousData : undefined,
  });
}

export function useModels() {
  return useQuery({ queryKey: ttsKeys.models, queryFn: getModels, staleTime: 10 * 60_000 });
}

export function useDefaultVoiceSettings() {
  return useQuery({ queryKey: ttsKeys.defaultSettings, queryFn: getDefaultVoiceSettings, staleTime: Infinity });
}
